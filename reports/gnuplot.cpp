#include "reports/gnuplot.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/display_text.h"

namespace qdt::reports {
namespace {

namespace fs = std::filesystem;

constexpr unsigned kGnuplotSeconds = 120;
constexpr int kChartWidth = 640, kChartHeight = 440, kChartFontPt = 14;
constexpr int kUprightExtraHeight = 160;  // room for category names set upright

// A gnuplot double-quoted string that reads as data whatever it holds:
// gnuplot substitutes `...` (a shell command) and @name (a macro) on the
// command line even inside double quotes, before the string is parsed, so
// every byte but letters, digits and a few inert marks is written as an octal
// escape, which the string parser turns back into the byte.
// The text is neutralised first (display_text.h): one line, no control or
// bidirectional character reaches the chart gnuplot draws into the page.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : neutral_text(text, false)) {
    const auto byte = static_cast<unsigned char>(c);
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum || std::strchr(" .,:;_-+=()[]/%", c) != nullptr) {
      out += c;
      continue;
    }
    char escaped[8];
    std::snprintf(escaped, sizeof escaped, "\\%03o", byte);
    out += escaped;
  }
  return out + "\"";
}

// "#rrggbb": gnuplot reads a colour name before any escape, so a colour is
// written as it is, and only when it is one.
bool is_rgb(const std::string& color) {
  if (color.size() != 7 || color[0] != '#') return false;
  for (size_t i = 1; i < 7; ++i) {
    const char c = color[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  }
  return true;
}

// A field of a data file: quoted, on one line (neutralised as quoted() is),
// without the quote that would end it.
std::string data_field(const std::string& text) {
  std::string out = neutral_text(text, false);
  std::replace(out.begin(), out.end(), '"', '\'');
  return out;
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// About eight ticks over `range`, a step of 1, 2 or 5 times a power of ten and at least 1.
double whole_tick_step(double range) {
  const double raw = std::max(1.0, range / 8);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (m * magnitude >= raw) return m * magnitude;
  }
  return 10 * magnitude;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

// From "<svg" on, with ids and references made unique to the chart.
std::string inlineable(std::string svg, size_t index) {
  const size_t start = svg.find("<svg");
  if (start == std::string::npos) return "";
  svg = svg.substr(start);
  const std::string prefix = "c" + std::to_string(index) + "_";
  for (const char* q : {"\"", "'"}) {  // gnuplot quotes attributes both ways
    replace_all(svg, std::string(" id=") + q, std::string(" id=") + q + prefix);
    replace_all(svg, std::string("href=") + q + "#", std::string("href=") + q + "#" + prefix);
  }
  replace_all(svg, "url(#", "url(#" + prefix);
  return svg;
}

}  // namespace

std::string gnuplot_data(const Chart& chart) {
  std::ostringstream out;
  for (size_t s = 0; s < chart.series.size(); ++s) {
    if (s) out << "\n\n";  // two blank lines: the next `index`
    out << "# " << data_field(chart.series[s].title) << "\n";
    for (const ChartPoint& p : chart.series[s].points) {
      out << num(p.x) << " " << num(p.mean) << " " << num(p.min) << " " << num(p.max) << " \"" << data_field(p.label)
          << "\"";
      if (chart.series[s].mark == SeriesMark::band) out << " " << num(p.x_lo) << " " << num(p.x_hi);
      out << "\n";
    }
  }
  return out.str();
}

std::string gnuplot_script(const std::vector<Chart>& charts) {
  std::ostringstream out;
  for (size_t i = 0; i < charts.size(); ++i) {
    const Chart& c = charts[i];
    const std::string n = std::to_string(i);
    // Many categories side by side: upright names, so neighbours never
    // overlap, on a taller chart that keeps the plot its height.
    const size_t bars = c.style == ChartStyle::bars && !c.series.empty() ? c.series.front().points.size() : 0;
    const bool upright = c.style == ChartStyle::bars && std::max(bars, c.x_ticks.size()) > 8;
    out << "reset\n"
        // Sized so that the page's figure (at most 1.25 times this width, two to a row on a wide screen) shows
        // the text at 12 px or more.
        << "set terminal svg size " << kChartWidth << "," << kChartHeight + (upright ? kUprightExtraHeight : 0) << " dynamic noenhanced font \"sans,"
        << kChartFontPt << "\" background rgb \"white\"\n"
        << "set output 'chart" << n << ".svg'\n"
        << "set title " << quoted(c.title) << "\n"
        << "set xlabel " << quoted(c.x_label) << "\n"
        << "set ylabel " << quoted(c.y_label) << "\n"
        << "set grid\nset border 3\nset tics nomirror\n"
        << "set offsets graph 0.04, graph 0.04, graph 0.08, graph 0.04\n";
    // Explicit ranges: autoscaling with offsets would show negative counts and sizes.
    double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0;
    bool first = true;
    for (const ChartSeries& s : c.series) {
      for (const ChartPoint& p : s.points) {
        x_lo = first ? p.x : std::min(x_lo, p.x);
        x_hi = first ? p.x : std::max(x_hi, p.x);
        y_lo = first ? p.min : std::min(y_lo, p.min);
        y_hi = first ? p.max : std::max(y_hi, p.max);
        first = false;
      }
    }
    if (c.x_range) std::tie(x_lo, x_hi) = *c.x_range;
    // gnuplot would put ticks at 0.2, 0.4, ... for a few small integers.
    if (c.integer_y) out << "set ytics " << num(whole_tick_step(y_hi - std::min(y_lo, 0.0))) << "\nset mytics 1\n";
    if (c.style == ChartStyle::bars) {
      out << "set xrange [" << num(x_lo - 0.6) << ":" << num(x_hi + 0.6) << "]\n";  // whole bars at the ends
    } else if (c.log_x) {
      out << "set xrange [" << num(x_lo / 1.5) << ":" << num(x_hi * 1.5) << "]\n";
    } else {
      const double pad = x_hi > x_lo ? (x_hi - x_lo) * 0.06 : 0.5;
      out << "set xrange [" << num(x_lo >= 0 ? std::max(0.0, x_lo - pad) : x_lo - pad) << ":" << num(x_hi + pad) << "]\n";
    }
    // Labels written above their points need headroom the points alone would not get.
    if (std::any_of(c.series.begin(), c.series.end(), [](const ChartSeries& s) { return s.labelled; })) {
      out << "set offsets graph 0.04, graph 0.04, graph 0.3, graph 0.04\n";
    }
    if (c.log_y) out << "set logscale y 10\nset yrange [0.8:*]\n";
    else if (y_lo >= 0) out << "set yrange [0:*]\n";
    if (c.style == ChartStyle::bars) {
      out << "set style fill solid 0.6 border -1\nset boxwidth 0.6\n";
      if (upright) out << "set xtics rotate by 90 right\nset bmargin 13\n";
      else out << "set xtics rotate by -40\nset bmargin 8\n";
    }
    if (c.series.size() > 1 || c.style == ChartStyle::points) {  // markers need a legend to be read
      out << "set key outside below center horizontal";
      if (!c.legend_title.empty()) out << " title " << quoted(c.legend_title);
      out << "\n";
    }
    else out << "unset key\n";
    if (c.log_x) out << "set logscale x 2\nset format x \"%.0b%B\"\n";
    if (!c.x_ticks.empty()) {
      out << "set xtics (";
      for (size_t t = 0; t < c.x_ticks.size(); ++t) {
        out << (t ? ", " : "") << quoted(c.x_ticks[t].second) << " " << num(c.x_ticks[t].first);
      }
      out << ")\n";
    }
    out << "plot ";
    for (size_t s = 0; s < c.series.size(); ++s) {
      const ChartSeries& series = c.series[s];
      out << (s ? ", \\\n     " : "") << "'chart" << n << ".dat' index " << s;
      const std::string colour = is_rgb(series.color) ? " lc rgb \"" + series.color + "\"" : "";
      if (c.style == ChartStyle::points && series.mark == SeriesMark::band) {
        out << " using 1:2:6:7:3:4 with boxxyerror fs transparent solid 0.18 noborder" << colour;
      } else if (c.style == ChartStyle::points) {
        out << " using 1:2 with points pt " << series.point_type << " ps 1.3" << colour;
      } else if (c.style == ChartStyle::bars) {
        out << (c.categorical_x ? " using 1:2:xticlabels(5) with boxes" : " using 1:2 with boxes");
      } else {
        out << (c.categorical_x ? " using 1:2:3:4:xticlabels(5)" : " using 1:2:3:4") << " with yerrorlines lw 2 pt 7";
      }
      out << " title " << quoted(series.title);
      if (c.style == ChartStyle::points && series.labelled) {
        // The label text is column 5 of the data file: data, never a command.
        const bool band = series.mark == SeriesMark::band;
        out << ", \\\n     'chart" << n << ".dat' index " << s
            << (band ? " using 6:2:5 with labels left offset char 0.3,0" : " using 1:2:5 with labels left rotate by 30 offset char 0.4,0.9")
            << (is_rgb(series.color) ? " tc rgb \"" + series.color + "\"" : "") << " notitle";
      }
    }
    out << "\nunset output\n";
  }
  return out.str();
}

ChartsRendered render_charts(const std::vector<Chart>& charts, const std::string& program) {
  ChartsRendered out;
  if (charts.empty()) {
    out.ok = true;
    return out;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/qdt-gnuplot-XXXXXX";
  if (!mkdtemp(templ.data())) {
    out.error = "cannot create a temporary folder for gnuplot";
    return out;
  }
  const fs::path dir = templ;
  {
    std::ofstream(dir / "charts.gp") << gnuplot_script(charts);
    for (size_t i = 0; i < charts.size(); ++i) {
      std::ofstream(dir / ("chart" + std::to_string(i) + ".dat")) << gnuplot_data(charts[i]);
    }
  }
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(126);
    const int log = open("gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log >= 0) {
      dup2(log, 1);
      dup2(log, 2);
    }
    alarm(kGnuplotSeconds);  // survives exec: a hung gnuplot is killed
    execlp(program.c_str(), program.c_str(), "charts.gp", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0) {
    out.error = "cannot start gnuplot";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    out.error = "gnuplot is not installed (\"" + program + "\" was not found), so this report has no charts";
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string log = read_file(dir / "gnuplot.log");
    if (log.size() > 400) log.resize(400);
    out.error = "gnuplot failed: " + log;
  } else {
    out.ok = true;
    for (size_t i = 0; i < charts.size() && out.ok; ++i) {
      out.svgs.push_back(inlineable(read_file(dir / ("chart" + std::to_string(i) + ".svg")), i));
      if (out.svgs.back().empty()) {
        out.ok = false;
        out.error = "gnuplot wrote no SVG for chart " + std::to_string(i);
      }
    }
    if (!out.ok) out.svgs.clear();
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return out;
}

}  // namespace qdt::reports
