#pragma once
// The reachability coverage of a campaign as an HTML section (qdt check
// --html): a row per point with what it means, the seeds that reached it
// overall and per profile; points never reached are highlighted, and the
// required points a --require-coverage campaign missed are listed first.
// Reads the "coverage_report" (and "coverage_missing") of a campaign summary.
#include <nlohmann/json.hpp>
#include <string>

namespace qdt::reports {

// "" when the summary carries no coverage report (an older shard's JSON).
std::string coverage_section(const nlohmann::json& summary);

}  // namespace qdt::reports
