// The `retention` step: one retention pass over a queue, or over every queue.
#include <optional>

#include "impl/storage/retention.h"
#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

struct RetentionArgs {
  std::optional<std::string> queue;  // none: every queue
};

void read(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  RetentionArgs& a = s.args.emplace<RetentionArgs>();
  loader.reader().only(j, p, {"op", "id", "queue"});
  a.queue = loader.reader().name(j, p, "queue", false);
}

void run(StepRunner& runner, const Step& s, uint64_t) {
  World& world = runner.world();
  // A fault in the listing fails this pass; the next pass retries.
  bool listed = true;
  try {
    impl::run_retention(world.retention(), s.as<RetentionArgs>().queue);
  } catch (const impl::StorageError&) {
    listed = false;
  }
  if (!listed) world.trace().begin(world.clock().now_ms(), "retention-failed").end();
}

std::string summary(const Step& s) { return "one retention pass over " + s.as<RetentionArgs>().queue.value_or("every queue"); }

}  // namespace

extern const StepKind retention_step;
const StepKind retention_step{.name = "retention", .read = read, .run = run, .summary = summary};

}  // namespace qdt::sim
