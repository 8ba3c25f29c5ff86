#include "reports/campaign_verdict.h"

namespace qdt::reports {

Verdict campaign_verdict(const nlohmann::json& summary) {
  Verdict v;
  const bool failed = summary.value("failed", uint64_t{0}) > 0 ||
                      !summary.value("fork_failures", nlohmann::json::array()).empty();
  const nlohmann::json unjudged = summary.value("unjudged", nlohmann::json::array());
  for (const auto& line : unjudged) v.reasons.push_back(line.get<std::string>());
  if (summary.contains("untested")) v.reasons.push_back(summary["untested"].get<std::string>());
  const bool untested = !v.reasons.empty();
  const auto missing = summary.value("coverage_missing", nlohmann::json::array());
  if (!missing.empty()) {
    std::string names;
    for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m.get<std::string>();
    v.reasons.push_back(std::to_string(missing.size()) + " required point(s) never reached (--require-coverage): " + names);
  }
  v.word = failed || !missing.empty() ? "FAIL" : untested ? "UNTESTED" : "PASS";
  v.held = v.word == "PASS";
  // Events of a kind no seed drew: grouped by property, as the terminal says it.
  const nlohmann::json judged = summary.value("judged", nlohmann::json::object());
  for (const auto& [property, counts] : judged.items()) {
    if (counts.value("of", int64_t{0}) == 0) v.idle += (v.idle.empty() ? "" : ", ") + property;
  }
  return v;
}

}  // namespace qdt::reports
