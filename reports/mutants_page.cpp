#include "reports/mutants_page.h"

#include <filesystem>
#include <optional>
#include <sstream>

#include "reports/html_page.h"

namespace qdt::reports {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::string text(const json& v, const char* key) {
  return v.contains(key) && v[key].is_string() ? v[key].get<std::string>() : "";
}

// The replay file relative to the page's folder when it lies below it.
std::string link_of(const std::string& file, const std::string& page_dir) {
  if (file.empty() || page_dir.empty()) return file;
  std::error_code ec;
  const fs::path rel = fs::relative(fs::absolute(file, ec), fs::absolute(page_dir, ec), ec);
  if (ec || rel.empty() || *rel.begin() == "..") return file;
  return rel.generic_string();
}

std::string verdict_text(const json& v) {
  const std::string verdict = text(v, "verdict");
  if (verdict == "caught") return "caught";
  return verdict == "hole" ? "hole" : "survived (harmless)";
}

struct Row {
  std::string variant, description, verdict, property, where, seeds, wall, steps, file, link;
};

// A survivor's argument lives in the document's survivors list.
std::string argument_of(const json& doc, const std::string& variant) {
  for (const json& s : doc["survivors"]) {
    if (text(s, "variant") == variant) return text(s, "argument").empty() ? "no argument: a hole" : text(s, "argument");
  }
  return "";
}

std::vector<Row> rows_of(const json& doc, const std::string& page_dir) {
  std::vector<Row> rows;
  for (const json& v : doc["variants"]) {
    Row r;
    r.variant = text(v, "variant");
    r.description = text(v, "description");
    r.verdict = verdict_text(v);
    const bool caught = v.value("caught", false);
    r.property = caught ? text(v, "property") : argument_of(doc, r.variant);
    r.where = caught ? text(v, "profile") + " seed " + std::to_string(v.value("seed", uint64_t{0})) : "";
    r.seeds = std::to_string(v.value("seeds_run", uint64_t{0})) + " of " + std::to_string(v.value("seeds_total", uint64_t{0}));
    std::ostringstream wall;
    wall.precision(3);
    wall << v.value("wall_s", 0.0);
    r.wall = wall.str();
    r.steps = caught ? std::to_string(v.value("steps", 0)) : "";
    r.file = caught && v.value("file_written", false) ? text(v, "file") : "";
    r.link = link_of(r.file, page_dir);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string settings_text(const json& doc) {
  return "profile " + text(doc, "profile") + ", " + std::to_string(doc.value("seeds", uint64_t{0})) +
         " seeds per profile from seed " + std::to_string(doc.value("first_seed", uint64_t{1}));
}

// The bisection thresholds of the variants that copy the shipped design.
struct ThresholdRow {
  std::string variant, setting, knob, meaning, value, evaluations, verdict, detail, file, link;
};

std::vector<ThresholdRow> threshold_rows(const json& doc, const std::string& page_dir) {
  std::vector<ThresholdRow> rows;
  for (const json& v : doc["variants"]) {
    if (!v.contains("thresholds")) continue;
    for (const json& t : v["thresholds"]) {
      ThresholdRow r;
      r.variant = text(v, "variant");
      r.setting = text(t, "setting");
      r.knob = text(t, "knob");
      r.meaning = text(t, "meaning");
      r.value = t.value("found", false) ? std::to_string(t.value("value", int64_t{0})) : "not found";
      r.evaluations = std::to_string(t.value("evaluations", 0));
      r.verdict = !t.value("verified", false) ? "CHECK FAILED"
                  : t.value("found", false) == t.value("expect_found", true) ? "as expected"
                                                                              : "unexpected";
      r.detail = text(t, "detail");
      r.file = t.value("file_written", false) ? text(t, "file") : "";
      r.link = link_of(r.file, page_dir);
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

// "repeat_age_ms=30000" -> 30000; nullopt when the setting is not NAME=NUMBER.
std::optional<double> setting_number(const std::string& setting) {
  const size_t eq = setting.find('=');
  if (eq == std::string::npos) return std::nullopt;
  try {
    size_t used = 0;
    const double v = std::stod(setting.substr(eq + 1), &used);
    if (used != setting.size() - eq - 1) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::vector<Chart> threshold_charts(const json& doc) {
  // One chart per (variant, knob) with at least two numeric settings: the
  // threshold against the setting (for shipped-expiry, the smallest skew
  // against the repeat's age).
  std::vector<Chart> charts;
  for (const json& v : doc["variants"]) {
    if (!v.contains("thresholds")) continue;
    Chart c;
    ChartSeries s;
    std::string setting_name;
    for (const json& t : v["thresholds"]) {
      const std::string setting = text(t, "setting");
      const std::optional<double> x = setting_number(setting);
      if (!x || !t.value("found", false)) continue;
      setting_name = setting.substr(0, setting.find('='));
      c.y_label = text(t, "knob") + " at the threshold (" + (text(t, "knob").ends_with("_ms") ? "ms" : "count") + ")";
      const double y = static_cast<double>(t.value("value", int64_t{0}));
      s.points.push_back({*x, "", y, y, y});
    }
    if (s.points.size() < 2) continue;
    c.title = text(v, "variant") + ": where the hole opens";
    c.integer_y = true;
    c.x_label = setting_name + (setting_name.ends_with("_ms") ? " (ms)" : "");
    s.title = text(v, "variant");
    c.series.push_back(std::move(s));
    charts.push_back(std::move(c));
  }
  return charts;
}

std::vector<Chart> mutants_charts(const json& doc) {
  Chart seeds, steps;
  seeds.title = "Scenarios run until the variant was caught";
  seeds.x_label = "design variant";
  seeds.y_label = "scenarios run (count, log scale)";
  steps.title = "Size of the shrunk failing scenario";
  steps.x_label = "design variant";
  steps.y_label = "steps after shrinking (count)";
  for (Chart* c : {&seeds, &steps}) {
    c->categorical_x = true;
    c->style = ChartStyle::bars;
    c->series.push_back(ChartSeries{.title = "caught"});
  }
  seeds.log_y = true;
  steps.integer_y = true;
  double x = 0;
  for (const json& v : doc["variants"]) {
    if (!v.value("caught", false)) continue;
    const std::string name = text(v, "variant");
    const double n = static_cast<double>(v.value("seeds_run", uint64_t{0}));
    const double s = static_cast<double>(v.value("steps", 0));
    seeds.series[0].points.push_back({x, name, n, n, n});
    steps.series[0].points.push_back({x, name, s, s, s});
    x += 1;
  }
  std::vector<Chart> out;
  if (!seeds.series[0].points.empty()) out = {seeds, steps};
  for (Chart& c : threshold_charts(doc)) out.push_back(std::move(c));
  return out;
}

std::string mutants_markdown(const json& doc, const std::string& page_dir) {
  std::ostringstream out;
  out << "# qdt mutants: the design-variant catalogue\n\n";
  if (!text(doc, "command").empty()) out << "Regenerate: " << md_code(text(doc, "command")) << "\n\n";
  out << "- run: " << md_escape(settings_text(doc)) << "\n";
  if (!text(doc, "commit").empty()) out << "- commit: " << md_escape(text(doc, "commit")) << "\n";
  out << "- wall_s: " << doc.value("wall_s", 0.0) << "\n";
  out << "- variants: " << doc["variants"].size() << ", survivors: " << doc["survivors"].size()
      << ", holes: " << doc["holes"].size() << "\n\n";
  out << "| variant | verdict | caught by / argument | first failing scenario | scenarios run | wall s | shrunk steps | replay file |\n"
      << "|---|---|---|---|---:|---:|---:|---|\n";
  for (const Row& r : rows_of(doc, page_dir)) {
    out << "| " << md_code(r.variant) << " | " << md_escape(r.verdict) << " | " << md_escape(r.property) << " | "
        << md_escape(r.where) << " | "
        << r.seeds << " | " << r.wall << " | " << r.steps << " | "
        << (r.file.empty() ? "" : "[" + md_escape(fs::path(r.file).filename().string()) + "](" + r.link + ")") << " |\n";
  }
  if (const std::vector<ThresholdRow> t = threshold_rows(doc, page_dir); !t.empty()) {
    out << "\n## Where the shipped design's holes bite\n\n"
        << "Bisection over a scenario family; each threshold is checked on both sides under the variant and against "
           "the reference's zero double writes.\n\n"
        << "| variant | setting | threshold | meaning | runs | check | replay file |\n|---|---|---:|---|---:|---|---|\n";
    for (const ThresholdRow& r : t) {
      out << "| " << md_code(r.variant) << " | " << md_escape(r.setting) << " | " << md_escape(r.knob + " = " + r.value)
          << " | " << md_escape(r.meaning) << " | " << r.evaluations << " | " << md_escape(r.verdict) << " | "
          << (r.file.empty() ? "" : "[" + md_escape(fs::path(r.file).filename().string()) + "](" + r.link + ")")
          << " |\n";
    }
  }
  out << "\n## What each variant changes\n\n";
  for (const Row& r : rows_of(doc, page_dir)) out << "- " << md_code(r.variant) << ": " << md_escape(r.description) << "\n";
  if (!doc["holes"].empty()) {
    out << "\n## Holes\n\nSurvivors without an argument that they are harmless:";
    for (const json& h : doc["holes"]) out << " " << md_code(h.get<std::string>());
    out << "\n";
  }
  return out.str();
}

std::string mutants_html(const json& doc, const std::string& page_dir, const std::string& gnuplot) {
  const std::vector<Chart> charts = mutants_charts(doc);
  const ChartsRendered drawn = render_charts(charts, gnuplot);
  std::ostringstream out;
  out << page_begin("qdt mutants: the design-variant catalogue");
  out << "<h1>qdt mutants: the design-variant catalogue</h1>\n"
      << "<p>Every design variant of docs/semantics.md §7 run against the campaign, stopped at its first failure, which is shrunk "
         "and written as a replay file. A variant that survives must carry an argument that it is harmless; one "
         "without is a hole in the suite.</p>\n";
  out << "<h2>What was run</h2>\n<dl>\n";
  if (!text(doc, "command").empty()) out << "<dt>command</dt><dd><code>" << html_escape(text(doc, "command")) << "</code></dd>\n";
  out << "<dt>campaign</dt><dd>" << html_escape(settings_text(doc)) << "</dd>\n";
  if (!text(doc, "commit").empty()) out << "<dt>commit</dt><dd><code>" << html_escape(text(doc, "commit")) << "</code></dd>\n";
  out << "<dt>verdicts</dt><dd>" << doc["variants"].size() << " variants, " << doc["survivors"].size() << " survivors, "
      << "<span" << (doc["holes"].empty() ? "" : " class=\"fail\"") << ">" << doc["holes"].size() << " holes</span></dd>\n"
      << "<dt>wall_s</dt><dd>" << doc.value("wall_s", 0.0) << "</dd>\n</dl>\n";
  out << "<h2>Variants</h2>\n"
      << table_begin({"variant", "verdict", "caught by", "first failing scenario", "scenarios run", "wall s",
                      "shrunk steps", "replay file"});
  for (const Row& r : rows_of(doc, page_dir)) {
    out << "<tr" << (r.verdict == "hole" ? " class=\"fail\"" : "") << "><td class=\"left\" title=\""
        << html_escape(r.description) << "\"><code>" << html_escape(r.variant) << "</code></td><td class=\"left\">"
        << html_escape(r.verdict) << "</td><td class=\"left\">"
        << html_escape(r.verdict == "caught" ? r.property : "see Survivors") << "</td><td class=\"left\">"
        << html_escape(r.where) << "</td><td>" << html_escape(r.seeds) << "</td><td>" << html_escape(r.wall)
        << "</td><td>" << html_escape(r.steps) << "</td><td class=\"id\">";
    if (!r.file.empty()) {
      out << "<a href=\"" << html_escape(r.link) << "\">" << html_escape(fs::path(r.file).filename().string()) << "</a>";
    }
    out << "</td></tr>\n";
  }
  out << table_end();
  if (!doc["survivors"].empty()) {
    out << "<h2>Survivors</h2>\n<ul>\n";
    for (const json& s : doc["survivors"]) {
      const std::string argument = text(s, "argument");
      out << "<li" << (argument.empty() ? " class=\"fail\"" : "") << "><code>" << html_escape(text(s, "variant"))
          << "</code>: " << (argument.empty() ? "hole: no argument that it is harmless" : "harmless: " + html_escape(argument));
      if (!text(s, "test").empty()) out << " (checked by <code>" << html_escape(text(s, "test")) << "</code>)";
      out << "</li>\n";
    }
    out << "</ul>\n";
  }
  if (!drawn.ok) {
    out << "<p class=\"note\">No charts: " << html_escape(drawn.error) << ". The table is complete.</p>\n";
  } else if (!charts.empty()) {
    const std::string run = settings_text(doc) + (text(doc, "commit").empty() ? "" : ", commit " + text(doc, "commit"));
    // mutants_charts puts the two catalogue charts first, when a variant was caught.
    const size_t catalogue_charts = charts.size() >= 2 && charts[0].style == ChartStyle::bars ? 2 : 0;
    if (catalogue_charts > 0) {
      out << "<h2>How fast and how small</h2>\n<div class=\"charts\">\n";
      for (size_t i = 0; i < catalogue_charts; ++i) {
        out << "<figure>\n" << drawn.svgs[i] << "\n<figcaption>" << html_escape("Caught variants only; " + run + ".")
            << "</figcaption>\n</figure>\n";
      }
      out << "</div>\n";
    }
    if (catalogue_charts < charts.size()) {
      out << "<div class=\"charts\">\n";
      for (size_t i = catalogue_charts; i < charts.size(); ++i) {
        out << "<figure>\n" << drawn.svgs[i] << "\n<figcaption>"
            << html_escape("The threshold found by bisection at each setting (table below); " + run + ".")
            << "</figcaption>\n</figure>\n";
      }
      out << "</div>\n";
    }
  }
  if (const std::vector<ThresholdRow> t = threshold_rows(doc, page_dir); !t.empty()) {
    out << "<h2>Where the shipped design's holes bite</h2>\n<p>Bisection over a scenario family; each threshold is "
           "checked on both sides under the variant and against the reference's zero double writes. Each replay file "
           "exits 1 under its variant and 0 on the reference.</p>\n"
        << table_begin({"variant", "setting", "threshold", "meaning", "runs", "check", "replay file"});
    for (const ThresholdRow& r : t) {
      out << "<tr" << (r.verdict == "CHECK FAILED" ? " class=\"fail\"" : "") << "><td class=\"left\"><code>"
          << html_escape(r.variant) << "</code></td><td class=\"left\">" << html_escape(r.setting) << "</td><td>"
          << html_escape(r.knob + " = " + r.value) << "</td><td class=\"text\">" << html_escape(r.meaning)
          << "</td><td>" << r.evaluations << "</td><td class=\"left\" title=\"" << html_escape(r.detail) << "\">"
          << html_escape(r.verdict) << "</td><td class=\"id\">";
      if (!r.file.empty()) {
        out << "<a href=\"" << html_escape(r.link) << "\">" << html_escape(fs::path(r.file).filename().string()) << "</a>";
      }
      out << "</td></tr>\n";
    }
    out << table_end();
  }
  out << "<h2>What each variant changes</h2>\n<ul>\n";
  for (const Row& r : rows_of(doc, page_dir)) {
    out << "<li><code>" << html_escape(r.variant) << "</code>: " << html_escape(r.description) << "</li>\n";
  }
  out << "</ul>\n" << page_end();
  return out.str();
}

}  // namespace qdt::reports
