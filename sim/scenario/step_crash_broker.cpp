// The `crash_broker` step: a broker loses its cache and what is in flight.
#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

void read(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  loader.reader().only(j, p, {"op", "id", "broker"});
  loader.required_broker(j, p, s);
}

void run(StepRunner& runner, const Step& s, uint64_t) { runner.world().crash_broker(s.broker); }

std::string summary(const Step& s) {
  return "broker " + std::to_string(s.broker) + " loses its cache and what is in flight";
}

}  // namespace

extern const StepKind crash_broker_step;
const StepKind crash_broker_step{.name = "crash_broker", .read = read, .run = run, .summary = summary, .fault = true};

}  // namespace qdt::sim
