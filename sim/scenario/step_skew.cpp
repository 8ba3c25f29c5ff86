// The `skew` step: a broker's clock set off storage's by `ms`.
#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

struct SkewArgs {
  int64_t ms = 0;
};

void read(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  JsonReader& r = loader.reader();
  SkewArgs& a = s.args.emplace<SkewArgs>();
  r.only(j, p, {"op", "id", "broker", "ms"});
  loader.required_broker(j, p, s);
  if (auto v = r.integer(j, p, "ms", -86'400'000, 86'400'000)) a.ms = *v;
  else if (!j.contains("ms")) r.fail(p + "/ms", "required");
}

void run(StepRunner& runner, const Step& s, uint64_t) { runner.world().set_skew(s.broker, s.as<SkewArgs>().ms); }

std::string summary(const Step& s) {
  return "broker " + std::to_string(s.broker) + " clock " + std::to_string(s.as<SkewArgs>().ms) + " ms off storage";
}

}  // namespace

extern const StepKind skew_step;
const StepKind skew_step{.name = "skew", .read = read, .run = run, .summary = summary, .fault = true};

}  // namespace qdt::sim
