#pragma once
// qdt check --html FILE: one page for a campaign — what was run, the counts
// per profile and the campaign digest, the summed metrics, the reachability
// coverage (reports/coverage_section.h), every failure
// found, and for each failure whose shrunk scenario was written, the
// timeline section (reports/timeline_section.h) of that shrunk replay.
// Reads JSON only: the merged summary of sim/campaign/campaign_merge.h and the
// timeline documents of sim/scenario/timeline.h.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace qdt::reports {

// `timelines[i]` belongs to summary["failures"][i] (null when that failure
// was not shrunk or its file could not be replayed). `command` is the
// campaign's command line, `commit` "" when unknown.
std::string check_html(const nlohmann::json& summary, const std::vector<nlohmann::json>& timelines,
                       const std::string& command, const std::string& commit, const std::string& gnuplot);

}  // namespace qdt::reports
