#pragma once
// Renders the document of qdt mutants (its --json output, plus "command" and
// "commit" when the caller adds them) as Markdown and as one self-contained
// HTML page: the variant catalogue, each variant caught by which property,
// within how many seeds and how much wall time, the shrunk scenario's size
// and a link to its replay file; survivors with their argument; holes. Charts
// (gnuplot, reports/gnuplot.h): seeds until caught and shrunk steps per
// variant. Reads the document only.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/gnuplot.h"

namespace qdt::reports {

// Relative links: replay files are linked relative to `page_dir` (the folder
// the page is written to) when they lie below it, else as written.
std::string mutants_markdown(const nlohmann::json& doc, const std::string& page_dir);
// Two catalogue charts (when a variant was caught), then the threshold charts.
std::vector<Chart> mutants_charts(const nlohmann::json& doc);
// Per variant with thresholds at >= 2 numeric settings ("repeat_age_ms=1000"):
// the threshold against the setting.
std::vector<Chart> threshold_charts(const nlohmann::json& doc);
std::string mutants_html(const nlohmann::json& doc, const std::string& page_dir, const std::string& gnuplot);

}  // namespace qdt::reports
