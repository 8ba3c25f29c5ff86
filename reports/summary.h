#pragma once
// Renders run results (the result objects of docs/semantics.md §4) as a readable summary:
// a terminal table and a Markdown report. Reads result JSON only.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace qdt::reports {

// A fixed-width table: scenario, verdict, requests, items, queued,
// duplicates, probes, virtual seconds, trace hash prefix.
std::string summary_table(const std::vector<nlohmann::json>& results);

// A Markdown report: totals, the table, then every failure in full.
std::string summary_markdown(const std::string& title, const std::vector<nlohmann::json>& results);

}  // namespace qdt::reports
