#pragma once
// Renders a sweep's result document (NAME.json of qdt explore, docs/semantics.md §4) as
// Markdown (a table per metric) and as one self-contained HTML page: what was
// run, a table per metric with the document's numbers, and an SVG chart per
// (knob, metric) drawn by gnuplot (reports/gnuplot.h). No scripts, no
// network; responsive CSS. Reads the document only.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/gnuplot.h"

namespace qdt::reports {

std::string sweep_markdown(const nlohmann::json& doc);

// The charts of a document: one per (knob, metric) for every knob with two
// values or more, knobs outer; a series per combination of the other varying
// knobs' values (at most kMaxSeries of them).
inline constexpr size_t kMaxSeries = 12;
// A numeric knob of at most this many values (on a linear axis) is ticked at
// exactly its values, labelled as the sweep file writes them.
inline constexpr size_t kMaxValueTicks = 8;
std::vector<Chart> sweep_charts(const nlohmann::json& doc);

// `gnuplot` is the program to run; when it cannot draw, the page says why
// and still has every table.
std::string sweep_html(const nlohmann::json& doc, const std::string& gnuplot);

}  // namespace qdt::reports
