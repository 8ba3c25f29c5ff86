#include "reports/html_page.h"

#include <gtest/gtest.h>

#include <string>

namespace qdt::reports {
namespace {

// The declarations of the first rule for exactly `selector` in the page's style sheet.
std::string rule(const std::string& page, const std::string& selector) {
  for (size_t at = page.find(selector + "{"); at != std::string::npos; at = page.find(selector + "{", at + 1)) {
    const bool starts_rule = at == 0 || page[at - 1] == '}' || page[at - 1] == '\n';
    if (!starts_rule) continue;
    const size_t open = at + selector.size();
    return page.substr(open + 1, page.find('}', open) - open - 1);
  }
  return "";
}

// A chart is drawn 640 px wide with 14 px text: on a phone it keeps 560 px
// (12 px text) and scrolls sideways inside its figure, as a table does,
// instead of shrinking its text below reading size.
TEST(HtmlPage, AChartOnANarrowScreenScrollsInsteadOfShrinkingItsText) {
  const std::string page = page_begin("t");
  const std::string svg = rule(page, "figure svg");
  EXPECT_NE(svg.find("min-width:560px"), std::string::npos) << svg;
  EXPECT_NE(svg.find("max-width:800px"), std::string::npos) << svg;
  const std::string figure = rule(page, "figure");
  EXPECT_NE(figure.find("overflow-x:auto"), std::string::npos) << figure;
  EXPECT_NE(figure.find("min-width:0"), std::string::npos) << figure;  // a grid cell may be narrower than its chart
}

}  // namespace
}  // namespace qdt::reports
