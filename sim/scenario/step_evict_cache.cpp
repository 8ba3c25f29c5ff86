// The `evict_cache` step: a broker drops the cache entries of every queue,
// of one queue or of one of its partitions.
#include <optional>

#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

struct EvictCacheArgs {
  std::optional<std::string> queue;
  std::optional<std::string> partition;  // only with a queue
};

void read(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  JsonReader& r = loader.reader();
  EvictCacheArgs& a = s.args.emplace<EvictCacheArgs>();
  r.only(j, p, {"op", "id", "broker", "queue", "partition"});
  loader.required_broker(j, p, s);
  a.queue = r.name(j, p, "queue", false);
  a.partition = r.name(j, p, "partition", false);
  if (a.partition && !a.queue) r.fail(p + "/partition", "a partition needs its queue");
}

void run(StepRunner& runner, const Step& s, uint64_t) {
  const EvictCacheArgs& a = s.as<EvictCacheArgs>();
  runner.world().evict_cache(s.broker, a.queue, a.partition);
}

std::string summary(const Step& s) {
  const EvictCacheArgs& a = s.as<EvictCacheArgs>();
  return "broker " + std::to_string(s.broker) + " drops cache entries of " + a.queue.value_or("every queue") +
         (a.partition ? "/" + *a.partition : std::string());
}

}  // namespace

extern const StepKind evict_cache_step;
const StepKind evict_cache_step{.name = "evict_cache", .read = read, .run = run, .summary = summary, .fault = true};

}  // namespace qdt::sim
