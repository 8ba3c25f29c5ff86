#include "reports/replay_report.h"

#include <sstream>

#include "reports/html_page.h"
#include "reports/timeline_section.h"

namespace qdt::reports {

std::string replay_html(const nlohmann::json& timeline, const std::string& gnuplot) {
  const std::optional<Chart> chart = offsets_chart(timeline);
  ChartsRendered drawn;
  if (chart) drawn = render_charts({*chart}, gnuplot);
  const std::string name = timeline["scenario"].get<std::string>();
  const bool passed = timeline["passed"].get<bool>();
  std::ostringstream out;
  out << page_begin("qdt replay: " + name + (passed ? " (PASS)" : " (FAIL)"));
  out << "<h1>qdt replay: " << html_escape(name) << " <span class=\"" << (passed ? "pass\">PASS" : "fail\">FAIL")
      << "</span></h1>\n";
  out << timeline_section(timeline, drawn.ok && !drawn.svgs.empty() ? drawn.svgs[0] : "", drawn.error, 2);
  out << page_end();
  return out.str();
}

}  // namespace qdt::reports
