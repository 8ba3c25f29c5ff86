#pragma once
// qdt replay --html FILE: one self-contained page for one run, rendered from
// its timeline document (sim/scenario/timeline.h) alone — the header of the run, its
// failures, the model's answer beside the client's, the step timeline, the
// offsets chart (gnuplot, reports/gnuplot.h) and the storage events.
#include <nlohmann/json.hpp>
#include <string>

namespace qdt::reports {

// `gnuplot` is the program to run; when it cannot draw, the page says why
// and still has every table.
std::string replay_html(const nlohmann::json& timeline, const std::string& gnuplot);

}  // namespace qdt::reports
