#include "reports/sweep_report.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <sstream>

#include "reports/html_page.h"
#include "reports/study_statement.h"

namespace qdt::reports {
namespace {

using json = nlohmann::json;

// A value as written in the JSON document, so tables and the file agree.
std::string cell(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string with_unit(const std::string& name, const std::string& unit) {
  return unit.empty() ? name : name + " (" + unit + ")";
}

std::string metric_unit(const json& doc, const std::string& metric) {
  for (const json& m : doc["metrics"]) {
    if (m["name"] == metric) return m.value("unit", std::string());
  }
  return "";
}

std::vector<std::string> metric_names(const json& doc) {
  std::vector<std::string> out;
  for (const json& m : doc["metrics"]) out.push_back(m["name"].get<std::string>());
  return out;
}

std::string base_text(const json& doc) {
  const json& b = doc["base"];
  return b.contains("profile") ? "profile " + b["profile"].get<std::string>()
                               : "scenario " + b.value("scenario", std::string("?"));
}

// Only a scenario base has an expect block to check; "" for a profile base.
std::string expectations_text(const json& doc) {
  if (doc["base"].contains("profile")) return "";
  return doc.value("expectations", std::string("check")) == "ignore"
             ? "ignored: only the properties judge (the scenario's expect block is not checked)"
             : "checked: a point whose answers differ from the scenario's expect block fails as expectation";
}

std::string seeds_text(const json& doc) {
  const uint64_t first = doc["first_seed"].get<uint64_t>(), n = doc["seeds"].get<uint64_t>();
  return std::to_string(n) + " per point (seeds " + std::to_string(first) + "-" + std::to_string(first + n - 1) + ")";
}

// Header cells and one row per point for `metric`.
std::pair<std::vector<std::string>, std::vector<std::vector<std::string>>> metric_table(const json& doc,
                                                                                        const std::string& metric) {
  std::vector<std::string> header = {"point"};
  for (const json& k : doc["knobs"]) header.push_back(k["path"].get<std::string>());
  for (const char* c : {"mean", "min", "max", "failures"}) header.push_back(c);
  std::vector<std::vector<std::string>> rows;
  for (const json& p : doc["points"]) {
    std::vector<std::string> row = {std::to_string(p["index"].get<uint64_t>())};
    for (const json& k : doc["knobs"]) row.push_back(cell(p["knobs"][k["path"].get<std::string>()]));
    const json& m = p["metrics"][metric];
    for (const char* c : {"mean", "min", "max"}) row.push_back(cell(m[c]));
    row.push_back(std::to_string(p["failures"].get<uint64_t>()) + "/" + std::to_string(p["runs"].get<uint64_t>()));
    rows.push_back(std::move(row));
  }
  return {header, rows};
}

struct ChartRef {
  std::string knob, metric, caption;
};

// Knobs that vary (two values or more): a knob held at one value is a fixed
// setting of the sweep, listed with the knobs but given no chart or legend.
std::vector<size_t> charted_knobs(const json& doc) {
  std::vector<size_t> out;
  for (size_t k = 0; k < doc["knobs"].size(); ++k) {
    if (doc["knobs"][k]["values"].size() >= 2) out.push_back(k);
  }
  return out;
}

std::vector<ChartRef> chart_refs(const json& doc) {
  std::vector<ChartRef> out;
  const std::vector<size_t> charted = charted_knobs(doc);
  const size_t knobs = charted.size();
  for (size_t ki : charted) {
    const json& k = doc["knobs"][ki];
    for (const std::string& m : metric_names(doc)) {
      ChartRef r{k["path"].get<std::string>(), m, ""};
      uint64_t failing = 0;
      for (const json& p : doc["points"]) failing += p["failures"].get<uint64_t>() > 0 ? 1 : 0;
      r.caption = "Mean of " + m + " over " + std::to_string(doc["seeds"].get<uint64_t>()) +
                  " seeds per point (bars: min to max) against " + r.knob +
                  (knobs > 1 ? "; one line per combination of the other knobs" : "") + ". Base: " + base_text(doc) +
                  ", variant " + doc.value("variant", std::string("none")) + ". Points with failing runs: " +
                  std::to_string(failing) + ".";
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace

std::vector<Chart> sweep_charts(const json& doc) {
  std::vector<Chart> charts;
  const json& knobs = doc["knobs"];
  const std::vector<size_t> charted = charted_knobs(doc);
  for (size_t k : charted) {
    const std::string path = knobs[k]["path"].get<std::string>();
    const json& values = knobs[k]["values"];
    bool numeric = true, positive = true;
    double lo = 0, hi = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      numeric = numeric && values[i].is_number();
      if (!numeric) break;
      const double v = values[i].get<double>();
      positive = positive && v > 0;
      lo = i ? std::min(lo, v) : v;
      hi = i ? std::max(hi, v) : v;
    }
    for (const std::string& metric : metric_names(doc)) {
      Chart c;
      c.title = metric + " by " + path;
      c.x_label = with_unit(path, knobs[k].value("unit", std::string()));
      c.y_label = "mean " + with_unit(metric, metric_unit(doc, metric));  // the caption says the bars are min to max
      c.categorical_x = !numeric;
      c.log_x = numeric && positive && values.size() > 2 && hi / lo >= 64;
      // gnuplot would tick 0, 500, ... 3500 for a knob of 60 and 3600, or 1, 1.5, 2 for one of 1 and 2.
      if (numeric && !c.log_x && values.size() <= kMaxValueTicks) {
        for (const json& v : values) c.x_ticks.emplace_back(v.get<double>(), cell(v));
      }
      // A series per combination of the other knobs, in order of first appearance.
      // With one other knob the legend is titled by it and its entries are values.
      const bool one_other = charted.size() == 2;
      if (one_other) c.legend_title = knobs[charted[0] == k ? charted[1] : charted[0]]["path"].get<std::string>();
      std::map<std::string, size_t> series_of;
      for (const json& p : doc["points"]) {
        std::string key;
        for (size_t o : charted) {
          if (o == k) continue;
          const std::string other = knobs[o]["path"].get<std::string>();
          key += (key.empty() ? "" : ", ") + (one_other ? "" : other + "=") + cell(p["knobs"][other]);
        }
        auto [it, fresh] = series_of.emplace(key, c.series.size());
        if (fresh) {
          if (c.series.size() >= kMaxSeries) continue;
          c.series.push_back({key.empty() ? metric : key, {}, kPointCircleFilled, ""});
        }
        if (it->second >= c.series.size()) continue;
        const json& v = p["knobs"][path];
        size_t index = 0;
        while (index < values.size() && values[index] != v) ++index;
        assert(index < values.size());
        const json& m = p["metrics"][metric];
        c.series[it->second].points.push_back({numeric ? v.get<double>() : static_cast<double>(index), cell(v),
                                               m["mean"].get<double>(), m["min"].get<double>(),
                                               m["max"].get<double>()});
      }
      charts.push_back(std::move(c));
    }
  }
  return charts;
}

std::string sweep_markdown(const json& doc) {
  std::ostringstream out;
  out << "# qdt explore: " << md_escape(doc["name"].get<std::string>()) << "\n\n";
  if (!doc.value("description", std::string()).empty()) out << md_escape(doc["description"].get<std::string>()) << "\n\n";
  out << study_statement_markdown(doc);
  out << "- command: " << md_code(doc.value("command", std::string())) << "\n"
      << "- base: " << md_escape(base_text(doc)) << "\n"
      << "- variant: " << md_escape(doc.value("variant", std::string("none"))) << "\n"
      << (expectations_text(doc).empty() ? "" : "- expectations: " + expectations_text(doc) + "\n")
      << "- seeds: " << seeds_text(doc) << "\n"
      << "- points: " << doc["points"].size() << ", runs: " << doc["runs"] << ", failing runs: " << doc["failures"]
      << "\n";
  if (doc.contains("commit")) out << "- commit: " << md_escape(doc["commit"].get<std::string>()) << "\n";
  out << "- wall_s: " << doc.value("wall_s", 0.0) << "\n";
  for (const std::string& metric : metric_names(doc)) {
    out << "\n## " << md_escape(with_unit(metric, metric_unit(doc, metric))) << "\n\n";
    const auto [header, rows] = metric_table(doc, metric);
    out << "|";
    for (const auto& h : header) out << " " << md_escape(h) << " |";
    out << "\n|";
    for (size_t i = 0; i < header.size(); ++i) out << (i == 0 || i > doc["knobs"].size() ? "---:|" : "---|");
    out << "\n";
    for (const auto& row : rows) {
      out << "|";
      for (const auto& c : row) out << " " << md_escape(c) << " |";
      out << "\n";
    }
  }
  bool any = false;
  for (const json& p : doc["points"]) {
    for (const json& f : p["failed_seeds"]) {
      if (!any) out << "\n## Failing runs\n\n";
      any = true;
      out << "- point " << p["index"] << " seed " << f["seed"] << ": " << md_escape(f["property"].get<std::string>()) << "\n";
    }
  }
  return out.str();
}

std::string sweep_html(const json& doc, const std::string& gnuplot) {
  const std::vector<Chart> charts = sweep_charts(doc);
  const std::vector<ChartRef> refs = chart_refs(doc);
  assert(charts.size() == refs.size());
  const ChartsRendered drawn = render_charts(charts, gnuplot);
  const std::string name = doc["name"].get<std::string>();
  std::ostringstream out;
  out << page_begin("qdt explore: " + name);
  out << "<h1>qdt explore: " << html_escape(name) << "</h1>\n";
  if (!doc.value("description", std::string()).empty()) {
    out << "<p>" << html_escape(doc["description"].get<std::string>()) << "</p>\n";
  }
  out << study_statement_html(doc);
  out << "<h2>What was run</h2>\n<dl>\n"
      << "<dt>command</dt><dd><code>" << html_escape(doc.value("command", std::string())) << "</code></dd>\n"
      << "<dt>base</dt><dd>" << html_escape(base_text(doc)) << "</dd>\n"
      << "<dt>variant</dt><dd>" << html_escape(doc.value("variant", std::string("none"))) << "</dd>\n"
      << (expectations_text(doc).empty() ? "" : "<dt>expectations</dt><dd>" + html_escape(expectations_text(doc)) + "</dd>\n")
      << "<dt>seeds</dt><dd>" << html_escape(seeds_text(doc)) << "</dd>\n"
      << "<dt>knobs</dt><dd>";
  for (const json& k : doc["knobs"]) {
    std::string values;
    for (const json& v : k["values"]) values += (values.empty() ? "" : ", ") + cell(v);
    out << "<code>" << html_escape(k["path"].get<std::string>()) << "</code> = " << html_escape(values) << "<br>";
  }
  out << "</dd>\n<dt>points</dt><dd>" << doc["points"].size() << " (" << doc["runs"] << " runs)</dd>\n"
      << "<dt>failing runs</dt><dd" << (doc["failures"].get<uint64_t>() ? " class=\"fail\"" : "") << ">"
      << doc["failures"] << "</dd>\n";
  if (doc.contains("commit")) out << "<dt>commit</dt><dd><code>" << html_escape(doc["commit"].get<std::string>()) << "</code></dd>\n";
  out << "<dt>wall_s</dt><dd>" << doc.value("wall_s", 0.0) << "</dd>\n</dl>\n";
  out << "<p>The numbers are those of <code>" << html_escape(name)
      << ".json</code>, which also holds every seed's raw value.</p>\n";
  if (!drawn.ok) out << "<p class=\"note\">No charts: " << html_escape(drawn.error) << ". The tables are complete.</p>\n";

  const size_t metrics = doc["metrics"].size();
  const std::vector<std::string> names = metric_names(doc);
  for (size_t m = 0; m < metrics; ++m) {
    const std::string& metric = names[m];
    out << "<h2 id=\"metric-" << m << "\">" << html_escape(with_unit(metric, metric_unit(doc, metric))) << "</h2>\n";
    const auto [header, rows] = metric_table(doc, metric);
    out << table_begin(header);
    for (const auto& row : rows) {
      out << "<tr>";
      for (const auto& c : row) out << "<td>" << html_escape(c) << "</td>";
      out << "</tr>\n";
    }
    out << table_end();
    if (!drawn.ok) continue;
    out << "<div class=\"charts\">\n";
    // Charts are knob-major over the knobs that vary: chart (k, m) is k * metrics + m.
    for (size_t k = 0; k < charted_knobs(doc).size(); ++k) {
      const size_t c = k * metrics + m;
      out << "<figure>\n" << drawn.svgs[c] << "\n<figcaption>" << html_escape(refs[c].caption)
          << "</figcaption>\n</figure>\n";
    }
    out << "</div>\n";
  }
  bool any = false;
  for (const json& p : doc["points"]) {
    for (const json& f : p["failed_seeds"]) {
      if (!any) out << "<h2>Failing runs</h2>\n<ul>\n";
      any = true;
      out << "<li>point " << p["index"] << " (" << html_escape(p["knobs"].dump()) << ") seed " << f["seed"] << ": "
          << html_escape(f["property"].get<std::string>()) << "</li>\n";
    }
  }
  if (any) out << "</ul>\n";
  out << page_end();
  return out.str();
}

}  // namespace qdt::reports
