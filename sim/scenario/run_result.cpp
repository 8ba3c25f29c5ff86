#include "sim/scenario/run_result.h"

namespace qdt::sim {

using json = nlohmann::json;

json RunFailure::to_json() const {
  json out = {{"kind", kind}, {"property", property ? json(*property) : json()}, {"step", step}, {"detail", detail}};
  if (partition) out["partition"] = *partition;
  if (why) out["why"] = *why;
  add_rule_fields(out);
  return out;
}

void RunFailure::add_rule_fields(json& out) const {
  if (rule) {
    out["rule"] = properties::rule_id(*rule);
    out["explanation"] = properties::rule_explanation(*rule);
  }
  if (event) out["event"] = *event;
  if (!expected.empty()) out["expected"] = expected;
  if (!actual.empty()) out["actual"] = actual;
}

json RunResult::to_json() const {
  json steps = json::object();
  for (const auto& [id, response] : step_responses) steps[id] = {{"response", response}};
  json failed = json::array();
  for (const RunFailure& f : failures) failed.push_back(f.to_json());
  json at_pick = json::object();
  for (const auto& [point, picks] : reached_at_pick) at_pick[point] = picks;
  json out = {{"scenario", scenario},
              {"file", file},
              {"seed", seed},
              {"variant", variant},
              {"passed", passed},
              {"trace_hash", trace_hash},
              {"steps", std::move(steps)},
              {"failures", std::move(failed)},
              {"metrics", metrics},
              {"reached", reached},
              {"reached_at_pick", std::move(at_pick)}};
  // Only a run that was not random says how it was scheduled: random
  // results read as they always did.
  if (!schedule.is_null()) out["schedule"] = schedule;
  return out;
}

}  // namespace qdt::sim
