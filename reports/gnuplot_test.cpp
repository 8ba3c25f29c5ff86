#include "reports/gnuplot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace qdt::reports {
namespace {

namespace fs = std::filesystem;

// A name an input file could carry: each piece is something gnuplot's command
// line, a shell or a page would act on if it were pasted unescaped.
std::string hostile(const std::string& marker) {
  return std::string("q`touch ") + marker + "`$(touch " + marker + ")@x \"'\\<script>&\n" + std::string(1, '\0') +
         "\xe2\x82\xac";
}

Chart hostile_chart(const std::string& marker) {
  Chart c;
  c.title = hostile(marker);
  c.x_label = hostile(marker);
  c.y_label = hostile(marker);
  c.legend_title = hostile(marker);
  c.categorical_x = true;
  for (int s = 0; s < 2; ++s) {
    ChartSeries series{hostile(marker), {}, kPointCircleFilled, "#336699"};
    series.points.push_back({0, hostile(marker), 1, 1, 2});
    series.points.push_back({1, hostile(marker) + "\n9 9 9 9", 2, 1, 3});
    c.series.push_back(series);
  }
  return c;
}

TEST(GnuplotScript, NoInputByteReachesTheCommandLineAsSyntax) {
  Chart points = hostile_chart("/tmp/x");
  points.style = ChartStyle::points;  // the style that colours its series
  points.series[1].color = "#`touch /tmp/x`";  // not a colour: left to gnuplot's palette
  points.series[0].labelled = true;           // labels read from the data file
  points.series[1].mark = SeriesMark::band;
  points.series[1].labelled = true;
  const std::string script = gnuplot_script({hostile_chart("/tmp/x"), points});
  EXPECT_EQ(script.find('`'), std::string::npos) << script;
  EXPECT_EQ(script.find('@'), std::string::npos) << script;
  EXPECT_EQ(script.find('$'), std::string::npos) << script;
  EXPECT_EQ(script.find("touch /tmp/x\""), std::string::npos);
  EXPECT_NE(script.find("\\140touch /tmp/x\\140"), std::string::npos) << "the backquote kept as an octal escape";
  EXPECT_NE(script.find("\\342\\202\\254"), std::string::npos) << "UTF-8 bytes kept";
  EXPECT_NE(script.find("lc rgb \"#336699\""), std::string::npos) << script;
  // Each title stays on its line: a newline or NUL in a name cannot start a command.
  EXPECT_EQ(script.find('\0'), std::string::npos);
  for (size_t at = script.find("set title"); at != std::string::npos; at = script.find("set title", at + 1)) {
    EXPECT_EQ(script.compare(script.find('\n', at) - 1, 1, "\""), 0);
  }
}

TEST(GnuplotData, ALabelCannotAddRowsOrEndItsQuote) {
  const std::string data = gnuplot_data(hostile_chart("/tmp/x"));
  EXPECT_EQ(data.find("\n9 9 9 9"), std::string::npos) << data;
  EXPECT_EQ(data.find('\0'), std::string::npos);
  size_t rows = 0;
  for (size_t at = data.find('\n'); at != std::string::npos; at = data.find('\n', at + 1)) ++rows;
  EXPECT_EQ(rows, 2u * (1 + 2) + 2) << data;  // per series a comment and two points; one blank pair between
}

// With gnuplot installed: the chart renders, nothing runs, and the text is in the SVG as text.
TEST(GnuplotRender, HostileNamesRenderAsTextAndRunNothing) {
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const fs::path marker = fs::temp_directory_path() / ("qdt-gnuplot-marker-" + std::to_string(getpid()));
  fs::remove(marker);
  Chart points = hostile_chart(marker.string());
  points.style = ChartStyle::points;
  points.series[0].labelled = true;  // the name drawn as a label from the data file
  points.series[1].mark = SeriesMark::band;
  points.series[1].labelled = true;
  const ChartsRendered out = render_charts({hostile_chart(marker.string()), points}, "gnuplot");
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_FALSE(fs::exists(marker)) << "a name ran a command";
  ASSERT_EQ(out.svgs.size(), 2u);
  EXPECT_EQ(out.svgs[0].find("<script"), std::string::npos);
  EXPECT_NE(out.svgs[0].find("&lt;script>"), std::string::npos);
  EXPECT_NE(out.svgs[0].find(std::string("`touch ") + marker.string() + "`"), std::string::npos) << "the name as text";
  EXPECT_EQ(out.svgs[1].find("<script"), std::string::npos);
  EXPECT_NE(out.svgs[1].find(std::string("`touch ") + marker.string() + "`"), std::string::npos) << "a label as text";
  fs::remove(marker);
}

TEST(GnuplotScript, WholeNumberTicksAreRoundAndTheTextIsLargeEnoughToRead) {
  Chart c;
  c.integer_y = true;
  c.series.push_back({"s", {{0, "", 0, 0, 0}, {1, "", 66384, 66384, 66384}}, kPointCircleFilled, ""});
  EXPECT_NE(gnuplot_script({c}).find("set ytics 10000\n"), std::string::npos) << gnuplot_script({c});
  c.series[0].points[1] = {1, "", 3, 3, 3};
  EXPECT_NE(gnuplot_script({c}).find("set ytics 1\n"), std::string::npos) << gnuplot_script({c});
  c.series[0].points[1] = {1, "", 13, 13, 13};
  EXPECT_NE(gnuplot_script({c}).find("set ytics 2\n"), std::string::npos) << gnuplot_script({c});
  // 14 pt on a 640 px canvas, which a page never shows narrower than 560 px: 12 px or more on screen.
  EXPECT_NE(gnuplot_script({c}).find("svg size 640,440 dynamic noenhanced font \"sans,14\""), std::string::npos);
}

// Many bars side by side get upright names on a taller chart; a few keep the slant.
TEST(GnuplotScript, ManyCategoriesAreNamedUprightOnATallerChart) {
  Chart c;
  c.style = ChartStyle::bars;
  c.categorical_x = true;
  ChartSeries bars{"s", {}, kPointCircleFilled, ""};
  for (int i = 0; i < 8; ++i) bars.points.push_back({static_cast<double>(i), "variant-name", 1, 1, 1});
  c.series.push_back(bars);
  std::string script = gnuplot_script({c});
  EXPECT_NE(script.find("set xtics rotate by -40\n"), std::string::npos) << script;
  EXPECT_NE(script.find("svg size 640,440 "), std::string::npos) << script;
  c.series[0].points.push_back({8, "variant-name", 1, 1, 1});
  script = gnuplot_script({c});
  EXPECT_NE(script.find("set xtics rotate by 90 right\n"), std::string::npos) << script;
  EXPECT_EQ(script.find("rotate by -40"), std::string::npos) << script;
  EXPECT_NE(script.find("svg size 640,600 "), std::string::npos) << script;
}

}  // namespace
}  // namespace qdt::reports
