#include "reports/mutants_page.h"

#include <gtest/gtest.h>

namespace qdt::reports {
namespace {

using json = nlohmann::json;

json doc() {
  return {{"profile", "all"},
          {"seeds", 500},
          {"first_seed", 1},
          {"wall_s", 12.5},
          {"command", "qdt mutants --seeds 500 --report out/cat"},
          {"commit", "abc123"},
          {"variants",
           {{{"variant", "last-wins"},
             {"description", "in-request, the <last> occurrence | leads"},
             {"verdict", "caught"},
             {"caught", true},
             {"property", "first-wins"},
             {"profile", "default"},
             {"seed", 3},
             {"seeds_run", 21},
             {"seeds_total", 5000},
             {"steps", 2},
             {"file_written", true},
             {"file", "out/cat-replays/last-wins/default-3-first-wins.json"},
             {"wall_s", 0.4}},
            {{"variant", "no-expire-before-verify"},
             {"description", "the cache answers without expiring first"},
             {"verdict", "survived"},
             {"caught", false},
             {"seeds_run", 5000},
             {"seeds_total", 5000},
             {"wall_s", 40.0}}}},
          {"survivors", {{{"variant", "no-expire-before-verify"}, {"argument", "storage re-checks"}}}},
          {"holes", json::array()}};
}

TEST(MutantsPage, MarkdownHasARowPerVariantWithItsReplayLinkRelativeToThePage) {
  const std::string md = mutants_markdown(doc(), "out");
  EXPECT_NE(md.find("Regenerate: `qdt mutants --seeds 500 --report out/cat`"), std::string::npos) << md;
  EXPECT_NE(md.find("| `last-wins` | caught | first-wins | default seed 3 | 21 of 5000 | 0.4 | 2 | "
                    "[default-3-first-wins.json](cat-replays/last-wins/default-3-first-wins.json) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `no-expire-before-verify` | survived (harmless) | storage re-checks |"), std::string::npos) << md;
  EXPECT_NE(md.find("the &lt;last> occurrence \\| leads"), std::string::npos) << "a | in a description splits no table";
}

json with_thresholds() {
  json d = doc();
  json t = json::array();
  for (int age : {1000, 30000}) {
    t.push_back({{"setting", "repeat_age_ms=" + std::to_string(age)}, {"knob", "skew_ms"}, {"meaning", "smallest skew"},
                 {"found", true}, {"expect_found", true}, {"verified", true}, {"value", 60001 - age},
                 {"evaluations", 27}, {"detail", "false at x-1, true at x"}, {"file_written", true},
                 {"file", "out/cat-replays/last-wins/t-" + std::to_string(age) + ".json"}});
  }
  t.push_back({{"setting", "traffic=none"}, {"knob", "delay_ms"}, {"meaning", "largest delay"}, {"found", false},
               {"expect_found", false}, {"verified", true}, {"value", 0}, {"evaluations", 1}, {"file_written", false}});
  d["variants"][0]["thresholds"] = t;
  return d;
}

TEST(MutantsPage, ThresholdsGetATableRowEachAndAChartOverTheirSetting) {
  const json d = with_thresholds();
  const std::string md = mutants_markdown(d, "out");
  EXPECT_NE(md.find("| `last-wins` | repeat_age_ms=30000 | skew_ms = 30001 | smallest skew | 27 | as expected | "
                    "[t-30000.json](cat-replays/last-wins/t-30000.json) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `last-wins` | traffic=none | delay_ms = not found | largest delay | 1 | as expected |  |"),
            std::string::npos)
      << md;
  const std::vector<Chart> t = threshold_charts(d);
  ASSERT_EQ(t.size(), 1u) << "the two numeric settings make one chart; traffic=none is not a number";
  ASSERT_EQ(t[0].series[0].points.size(), 2u);
  EXPECT_EQ(t[0].series[0].points[1].x, 30000);
  EXPECT_EQ(t[0].series[0].points[1].mean, 30001);
  EXPECT_EQ(t[0].x_label, "repeat_age_ms (ms)");
  EXPECT_EQ(mutants_charts(d).size(), 3u);
  json failed = d;
  failed["variants"][0]["thresholds"][0]["verified"] = false;
  EXPECT_NE(mutants_html(failed, "out", "/nonexistent").find("CHECK FAILED"), std::string::npos);
}

TEST(MutantsPage, ChartsHoldTheCaughtVariantsOnly) {
  const std::vector<Chart> charts = mutants_charts(doc());
  ASSERT_EQ(charts.size(), 2u);
  ASSERT_EQ(charts[0].series.size(), 1u);
  ASSERT_EQ(charts[0].series[0].points.size(), 1u);
  EXPECT_EQ(charts[0].series[0].points[0].label, "last-wins");
  EXPECT_EQ(charts[0].series[0].points[0].mean, 21);
  EXPECT_EQ(charts[1].series[0].points[0].mean, 2);
  EXPECT_TRUE(charts[0].style == ChartStyle::bars && charts[0].log_y && charts[0].categorical_x);
  EXPECT_NE(gnuplot_script(charts).find("with boxes"), std::string::npos);
  json none = doc();
  none["variants"].erase(0);
  EXPECT_TRUE(mutants_charts(none).empty());
}

TEST(MutantsPage, HtmlEscapesAndSaysWhyThereAreNoChartsWithoutGnuplot) {
  const std::string page = mutants_html(doc(), "out", "/nonexistent/gnuplot");
  EXPECT_EQ(page.find("<last>"), std::string::npos);
  EXPECT_NE(page.find("&lt;last&gt;"), std::string::npos);
  EXPECT_NE(page.find("<a href=\"cat-replays/last-wins/default-3-first-wins.json\">"), std::string::npos);
  EXPECT_NE(page.find("No charts:"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_NE(page.find("abc123"), std::string::npos);
}

}  // namespace
}  // namespace qdt::reports
