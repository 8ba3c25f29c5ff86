#pragma once
// The HTML pages of qdt replay --html and qdt check --html: builds timeline
// documents (sim/scenario/timeline.h) and hands them to reports/ to render. Part of
// the qdt executable, like explore_command, because it joins sim/ (which
// runs scenarios) and reports/ (which reads JSON only).
#include <nlohmann/json.hpp>
#include <string>

#include "impl/variant.h"
#include "sim/scenario/runner.h"
#include "sim/scenario/scenario.h"

namespace qdt::sim {

struct HtmlOutput {
  std::string file;               // where the page goes
  std::string commit;             // QDT_COMMIT, "" when unset
  std::string gnuplot = "gnuplot";  // QDT_GNUPLOT overrides
};

// Writes the page of one replayed run; false (with the reason on stderr)
// when the file cannot be written.
bool write_replay_html(const Scenario& scenario, const RunOutcome& outcome, const std::string& command,
                       const HtmlOutput& html);

// Writes the campaign page for `summary` (report_campaign's): every failure
// whose shrunk scenario was written is loaded and replayed under `variant`
// for its timeline. False (reason on stderr) when the page cannot be written.
bool write_check_html(const nlohmann::json& summary, impl::Variant variant, const std::string& command,
                      const HtmlOutput& html);

}  // namespace qdt::sim
