#pragma once
// The part of a page that shows one run's timeline document (sim/scenario/timeline.h
// describes it; this reads the JSON only): what was run, the failures, the
// model's answer beside what the client saw, every step in order with its
// responses and faults, the offsets chart, and every storage event. Rows the
// document marks `highlighted` get class "hl", the rest of a failing
// partition's events class "part", fault steps class "fault".
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "reports/gnuplot.h"

namespace qdt::reports {

// Per partition two point series (stored offsets, duplicates answered) over
// virtual time; nullopt when the run stored nothing and answered no duplicate.
std::optional<Chart> offsets_chart(const nlohmann::json& timeline);

// `chart_svg` is the drawn offsets chart ("" when there is none); when
// empty and `chart_error` is not, the page says why there is no chart.
// `level` is the heading level of the section's parts (2 on a replay page,
// 3 inside a campaign page's failure).
std::string timeline_section(const nlohmann::json& timeline, const std::string& chart_svg,
                             const std::string& chart_error, int level);

}  // namespace qdt::reports
