// The `configure` step: a queue's options changed through the admin path.
#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

struct ConfigureArgs {
  std::string queue;
  json options;  // validated
};

void read(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  JsonReader& r = loader.reader();
  ConfigureArgs& a = s.args.emplace<ConfigureArgs>();
  r.only(j, p, {"op", "id", "queue", "options"});
  a.queue = r.name(j, p, "queue", true).value_or("");
  if (!j.contains("options")) return r.fail(p + "/options", "required");
  if (r.queue_options(j["options"], p + "/options")) a.options = j["options"];
}

void run(StepRunner& runner, const Step& s, uint64_t) {
  const ConfigureArgs& a = s.as<ConfigureArgs>();
  runner.resent_after_lost_connection(s, [&] { runner.world().admin().configure(a.queue, a.options); });
}

std::string summary(const Step& s) {
  const ConfigureArgs& a = s.as<ConfigureArgs>();
  return a.queue + " " + a.options.dump();
}

}  // namespace

extern const StepKind configure_step;
const StepKind configure_step{.name = "configure", .read = read, .run = run, .summary = summary, .fault = true};

}  // namespace qdt::sim
