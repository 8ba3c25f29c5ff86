// The `cache` step: a broker's dedup cache turned on or off.
#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

struct CacheArgs {
  bool enabled = true;
};

void read(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  JsonReader& r = loader.reader();
  CacheArgs& a = s.args.emplace<CacheArgs>();
  r.only(j, p, {"op", "id", "broker", "enabled"});
  loader.required_broker(j, p, s);
  if (auto v = r.boolean(j, p, "enabled")) a.enabled = *v;
  else if (!j.contains("enabled")) r.fail(p + "/enabled", "required");
}

void run(StepRunner& runner, const Step& s, uint64_t) {
  runner.world().set_cache_enabled(s.broker, s.as<CacheArgs>().enabled);
}

std::string summary(const Step& s) {
  return "broker " + std::to_string(s.broker) + " cache " + (s.as<CacheArgs>().enabled ? "on" : "off");
}

}  // namespace

extern const StepKind cache_step;
const StepKind cache_step{.name = "cache", .read = read, .run = run, .summary = summary, .fault = true};

}  // namespace qdt::sim
