#include "reports/sweep_report.h"

#include <gtest/gtest.h>

namespace qdt::reports {
namespace {

using json = nlohmann::json;

// A two-knob document as qdt explore writes it (sim/study/sweep_run.h).
json document() {
  json points = json::array();
  int index = 0;
  for (int budget : {1024, 65536, 1048576}) {
    for (const char* mode : {"on", "off"}) {
      const double v = budget / 1024.0 + (mode[1] == 'n' ? 0 : 1);
      points.push_back({{"index", index++},
                        {"knobs", {{"world.cache.budget_bytes", budget}, {"world.mode", mode}}},
                        {"runs", 2},
                        {"failures", index == 2 ? 1 : 0},
                        {"failed_seeds", index == 2 ? json{{{"seed", 2}, {"property", "model-agreement"}}} : json::array()},
                        {"metrics", {{"rows", {{"mean", v}, {"min", v - 1}, {"max", v + 1}}}}},
                        {"seeds", {1, 2}},
                        {"raw", {{"rows", {v - 1, v + 1}}}}});
    }
  }
  return {{"name", "t"}, {"description", "a <test>"}, {"command", "qdt explore t.json"},
          {"base", {{"profile", "default"}}}, {"variant", "none"}, {"seeds", 2}, {"first_seed", 1},
          {"metrics", {{{"name", "rows"}, {"unit", "count"}}}},
          {"knobs", {{{"path", "world.cache.budget_bytes"}, {"values", {1024, 65536, 1048576}}, {"unit", "bytes"}},
                     {{"path", "world.mode"}, {"values", {"on", "off"}}, {"unit", "count"}}}},
          {"points", points}, {"runs", 12}, {"failures", 1}, {"wall_s", 0.5}};
}

TEST(SweepReport, AKnobOfTwoValuesIsTickedAtExactlyThoseValues) {
  json doc = document();
  doc["knobs"][0]["values"] = {1, 2};
  doc["knobs"][1]["values"] = {"on"};
  json points = json::array();
  for (const json& p : doc["points"]) {
    if (p["knobs"]["world.mode"] == "on" && p["knobs"]["world.cache.budget_bytes"] == 1024) {
      for (int budget : {1, 2}) {
        json q = p;
        q["knobs"]["world.cache.budget_bytes"] = budget;
        points.push_back(q);
      }
    }
  }
  doc["points"] = points;
  const std::vector<Chart> charts = sweep_charts(doc);
  ASSERT_EQ(charts.size(), 1u);
  EXPECT_FALSE(charts[0].log_x);
  ASSERT_EQ(charts[0].x_ticks.size(), 2u);
  EXPECT_EQ(charts[0].x_ticks[1], std::make_pair(2.0, std::string("2")));
  const std::string script = gnuplot_script(charts);
  EXPECT_NE(script.find("set xtics (\"1\" 1, \"2\" 2)\n"), std::string::npos) << script;
  EXPECT_EQ(document()["knobs"][0]["values"].size(), 3u);
  EXPECT_TRUE(sweep_charts(document())[0].x_ticks.empty()) << "a log axis keeps gnuplot's powers of two";
}

TEST(SweepReport, MarkdownHasATablePerMetricWithTheDocumentsNumbers) {
  const std::string md = sweep_markdown(document());
  EXPECT_NE(md.find("## rows (count)"), std::string::npos);
  EXPECT_NE(md.find("| point | world.cache.budget_bytes | world.mode | mean | min | max | failures |"), std::string::npos);
  EXPECT_NE(md.find("| 2 | 65536 | on | 64.0 | 63.0 | 65.0 | 0/2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("- point 1 seed 2: model-agreement"), std::string::npos);
}

TEST(SweepReport, ChartsPerKnobAndMetricWithASeriesPerOtherKnobValue) {
  const std::vector<Chart> charts = sweep_charts(document());
  ASSERT_EQ(charts.size(), 2u);
  EXPECT_EQ(charts[0].title, "rows by world.cache.budget_bytes");
  EXPECT_EQ(charts[0].x_label, "world.cache.budget_bytes (bytes)");
  EXPECT_TRUE(charts[0].log_x);
  EXPECT_FALSE(charts[0].categorical_x);
  ASSERT_EQ(charts[0].series.size(), 2u);
  EXPECT_EQ(charts[0].series[1].title, "off");
  EXPECT_EQ(charts[0].legend_title, "world.mode");
  ASSERT_EQ(charts[0].series[1].points.size(), 3u);
  EXPECT_EQ(charts[0].series[1].points[2].x, 1048576);
  EXPECT_EQ(charts[0].series[1].points[2].mean, 1025);
  EXPECT_TRUE(charts[1].categorical_x);
  ASSERT_EQ(charts[1].series.size(), 3u);
  EXPECT_EQ(charts[1].series[0].points[1].label, "off");
  EXPECT_EQ(charts[1].series[0].points[1].x, 1);
}

TEST(SweepReport, AKnobHeldAtOneValueGetsNoChartAndNoLegendEntry) {
  json doc = document();
  doc["knobs"].push_back({{"path", "generator.steps"}, {"values", {40}}, {"unit", "count"}});
  for (json& p : doc["points"]) p["knobs"]["generator.steps"] = 40;
  const std::vector<Chart> charts = sweep_charts(doc);
  ASSERT_EQ(charts.size(), 2u) << "the fixed knob is a setting, not an axis";
  EXPECT_EQ(charts[0].legend_title, "world.mode");
  EXPECT_EQ(charts[0].series[1].title, "off");
  const std::string page = sweep_html(doc, "/nonexistent/gnuplot");
  EXPECT_NE(page.find("generator.steps"), std::string::npos) << "still listed with the knobs";
}

TEST(SweepReport, GnuplotScriptDrawsEveryChartWithLegendsOnlyForSeveralSeries) {
  std::vector<Chart> charts = sweep_charts(document());
  charts[1].series.resize(1);
  const std::string script = gnuplot_script(charts);
  EXPECT_NE(script.find("set output 'chart0.svg'"), std::string::npos);
  EXPECT_NE(script.find("set output 'chart1.svg'"), std::string::npos);
  EXPECT_NE(script.find("set logscale x 2"), std::string::npos);
  EXPECT_NE(script.find("set key outside"), std::string::npos);
  EXPECT_NE(script.find("unset key"), std::string::npos);
  EXPECT_NE(script.find("xticlabels(5)"), std::string::npos);
  EXPECT_NE(gnuplot_data(charts[0]).find("\n\n"), std::string::npos);  // series are gnuplot indexes
}

TEST(SweepReport, AStudysQuestionAndConclusionsComeFirstAsEscapedText) {
  json doc = document();
  EXPECT_EQ(sweep_html(doc, "/nonexistent/gnuplot").find("Conclusions"), std::string::npos) << "none stated";
  doc["question"] = "Does <b>this</b> hold?";
  doc["conclusions"] = {"It holds & <script>x</script>", "Second"};
  const std::string html = sweep_html(doc, "/nonexistent/gnuplot");
  const size_t question = html.find("Does &lt;b&gt;this&lt;/b&gt; hold?");
  const size_t first = html.find("<li>It holds &amp; &lt;script&gt;x&lt;/script&gt;</li>");
  const size_t second = html.find("<li>Second</li>");
  ASSERT_NE(question, std::string::npos) << html;
  ASSERT_NE(first, std::string::npos) << html;
  ASSERT_NE(second, std::string::npos) << html;
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_LT(question, first);
  EXPECT_LT(first, second);
  EXPECT_LT(second, html.find("What was run")) << "the finding before the tables";
  const std::string md = sweep_markdown(doc);
  EXPECT_NE(md.find("**Question.** Does"), std::string::npos) << md;
  EXPECT_NE(md.find("\n- Second\n"), std::string::npos) << md;
  EXPECT_LT(md.find("- Second"), md.find("- command:"));
}

TEST(SweepReport, WithoutGnuplotThePageSaysSoAndKeepsTheTables) {
  const std::string html = sweep_html(document(), "/nonexistent/gnuplot");
  EXPECT_NE(html.find("gnuplot is not installed"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("<td>65536</td><td>on</td><td>64.0</td>"), std::string::npos);
  EXPECT_NE(html.find("a &lt;test&gt;"), std::string::npos);
  EXPECT_NE(html.find("name=\"viewport\""), std::string::npos);
}

}  // namespace
}  // namespace qdt::reports
