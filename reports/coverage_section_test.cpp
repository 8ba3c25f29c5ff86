#include "reports/coverage_section.h"

#include <gtest/gtest.h>

namespace qdt::reports {
namespace {

using json = nlohmann::json;

json summary_with(const json& missing) {
  json s = json::parse(R"({"coverage_report": {
    "points": 2, "reached": 1, "profiles": {"default": 5, "retention": 3},
    "never_reached": ["cache.declined"],
    "by_point": [
      {"name": "cache.vouched", "means": "a watermark <b>", "seeds": 4, "by_profile": {"default": 4, "retention": 0}},
      {"name": "cache.declined", "means": "declined", "seeds": 0, "by_profile": {"default": 0, "retention": 0}}]}})");
  if (!missing.is_null()) s["coverage_missing"] = missing;
  return s;
}

TEST(CoverageSection, HighlightsWhatWasNeverReachedAndEscapes) {
  const std::string html = coverage_section(summary_with(nullptr));
  EXPECT_NE(html.find("1 of 2 reachability points reached"), std::string::npos) << html;
  EXPECT_NE(html.find("<tr class=\"unreached\"><td><code>cache.declined</code>"), std::string::npos) << html;
  EXPECT_EQ(html.find("<tr class=\"unreached\"><td><code>cache.vouched</code>"), std::string::npos) << html;
  EXPECT_EQ(html.find("class=\"hl\""), std::string::npos) << html;  // red is for failures only
  EXPECT_NE(html.find("a watermark &lt;b&gt;"), std::string::npos) << html;
  EXPECT_EQ(html.find("<b>"), std::string::npos) << html;
  EXPECT_EQ(html.find("never reached:"), std::string::npos) << html;  // no --require-coverage
}

TEST(CoverageSection, TheTableIsFoldedAndTheMissedPointsAreNot) {
  const std::string html = coverage_section(summary_with(json::array({"cache.declined"})));
  const size_t details = html.find("<details>");
  ASSERT_NE(details, std::string::npos) << html;
  EXPECT_LT(details, html.find("<table>")) << html;
  EXPECT_LT(html.find("</table>"), html.find("</details>")) << html;
  EXPECT_LT(html.find("Required by"), details) << html;
  EXPECT_NE(html.find("(1 never reached, shaded yellow)</summary>"), std::string::npos) << html;
}

TEST(CoverageSection, ListsTheRequiredPointsMissed) {
  const std::string html = coverage_section(summary_with(json::array({"cache.declined"})));
  EXPECT_NE(html.find("Required by <code>--require-coverage</code> and never reached: <code>cache.declined</code>"),
            std::string::npos)
      << html;
}

TEST(CoverageSection, NothingWithoutAReport) { EXPECT_EQ(coverage_section(json::object()), ""); }

}  // namespace
}  // namespace qdt::reports
