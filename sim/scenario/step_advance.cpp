#include "sim/scenario/step_advance.h"

#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

void read(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  JsonReader& r = loader.reader();
  AdvanceArgs& a = s.args.emplace<AdvanceArgs>();
  r.only(j, p, {"op", "id", "seconds", "ms"});
  const bool has_s = j.contains("seconds"), has_ms = j.contains("ms");
  if (has_s == has_ms) return r.fail(p, "advance takes exactly one of \"seconds\" or \"ms\"");
  const json& v = has_s ? j["seconds"] : j["ms"];
  if (!v.is_number() || v.get<double>() < 0) return r.fail(p + (has_s ? "/seconds" : "/ms"), "expected a number >= 0");
  const double ms = has_s ? v.get<double>() * 1000.0 : v.get<double>();
  if (ms > static_cast<double>(kMaxAdvanceMs) || ms != static_cast<double>(static_cast<int64_t>(ms))) {
    return r.fail(p + (has_s ? "/seconds" : "/ms"), "must be a whole number of milliseconds, at most ten years");
  }
  a.ms = static_cast<int64_t>(ms);
}

void run(StepRunner& runner, const Step& s, uint64_t) { runner.world().sleep_ms(s.as<AdvanceArgs>().ms); }

std::string summary(const Step& s) { return "+" + std::to_string(s.as<AdvanceArgs>().ms) + " ms"; }

StepCost cost(const Step& s) { return {.advance_ms = s.as<AdvanceArgs>().ms}; }

}  // namespace

const StepKind advance_step{.name = "advance", .read = read, .run = run, .summary = summary, .fault = true, .cost = cost};

}  // namespace qdt::sim
