#pragma once
// Line charts drawn by gnuplot's SVG terminal, run as a subprocess: the data
// and one script go to a temporary folder, gnuplot writes one SVG per chart,
// and the SVG text comes back ready to inline in an HTML page (the XML
// prologue dropped, element ids prefixed per chart so several charts can
// share a page). gnuplot rather than hand-drawn SVG: its axes, ticks, log
// scales and legends are right at every data range, and it is one Debian
// package (gnuplot-nox) without X.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace qdt::reports {

struct ChartPoint {
  double x = 0;        // the position on the x axis (the index, for a categorical axis)
  std::string label;   // the x tick label on a categorical axis
  double mean = 0, min = 0, max = 0;
  double x_lo = 0, x_hi = 0;  // SeriesMark::band: the box's x extent (min and max are its y extent)
};

// Markers of a point series (gnuplot point types): a filled circle and an
// open triangle read apart in grey print and to colour-blind eyes.
inline constexpr int kPointCircleFilled = 7;
inline constexpr int kPointTriangleOpen = 8;
inline constexpr int kPointCross = 2;

// How a series of a ChartStyle::points chart is drawn.
enum class SeriesMark {
  marker,  // one marker per point
  band,    // a translucent box per point over [x_lo, x_hi] x [min, max]: a window, a fault's interval
};

struct ChartSeries {
  std::string title;  // legend text
  std::vector<ChartPoint> points;
  int point_type = kPointCircleFilled;  // ChartStyle::points only
  std::string color;                    // "#rrggbb"; "" lets gnuplot cycle its palette
  SeriesMark mark = SeriesMark::marker;  // ChartStyle::points only
  // Each point's label written beside it (a band's at its left edge, at height `mean`), read from the data file.
  bool labelled = false;
};

enum class ChartStyle {
  error_lines,  // mean joined by lines, min-max bars (sweeps)
  points,       // one marker per point at (x, mean), no lines (offsets over time)
  bars,         // one bar per point at its mean, for categories such as variant names
};

struct Chart {
  std::string title;
  std::string x_label;  // with the unit: "world.cache.budget_bytes (bytes)"
  std::string y_label;
  bool categorical_x = false;  // x values are not numbers: ticks at the points
  bool log_x = false;
  bool log_y = false;  // for counts spanning decades (values must be > 0)
  std::vector<ChartSeries> series;  // a legend is drawn when there are several
  std::string legend_title;         // above the legend entries, when they share one knob
  ChartStyle style = ChartStyle::error_lines;
  std::optional<std::pair<double, double>> x_range;  // fixed, instead of the points' span
  bool integer_y = false;  // counts and offsets: whole-number ticks only
  // When not empty, the only x ticks, each at its position with its label: a
  // knob with few values is read at exactly those values.
  std::vector<std::pair<double, std::string>> x_ticks;
};

struct ChartsRendered {
  std::vector<std::string> svgs;  // one per chart, in order, when ok
  bool ok = false;
  std::string error;  // why there are none: gnuplot missing, or it failed
};

// `program` is the gnuplot to run ("gnuplot" searches PATH). Bounded: gnuplot
// is killed after 120 s.
ChartsRendered render_charts(const std::vector<Chart>& charts, const std::string& program);

// The gnuplot script for `charts`, reading chartN.dat and writing chartN.svg
// in the current folder (exposed for tests).
std::string gnuplot_script(const std::vector<Chart>& charts);
std::string gnuplot_data(const Chart& chart);

}  // namespace qdt::reports
