#include "reports/timeline_section.h"

#include <algorithm>
#include <sstream>

#include "reports/html_page.h"

namespace qdt::reports {
namespace {

using json = nlohmann::json;

// Colour-blind-safe (Okabe-Ito) colours, one per partition; stored offsets
// and duplicates of one partition share its colour and differ by marker.
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"};

std::string text(const json& v) {
  if (v.is_null()) return "";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string e(const json& v) { return html_escape(text(v)); }

std::string heading(int level, const std::string& title) {
  const std::string h = "h" + std::to_string(level);
  return "<" + h + ">" + html_escape(title) + "</" + h + ">\n";
}

std::string joined(const json& values) {
  std::string out;
  for (const json& v : values) out += (out.empty() ? "" : ", ") + text(v);
  return out;
}

std::string row_class(const json& row, bool fault) {
  if (row.value("highlighted", false)) return " class=\"hl\"";
  if (row.value("in_failing_partition", false)) return " class=\"part\"";
  return fault ? " class=\"fault\"" : "";
}

void header(const json& t, std::ostringstream& out) {
  const bool passed = t.value("passed", false);
  out << "<dl>\n<dt>scenario</dt><dd>" << e(t["scenario"]) << "</dd>\n";
  if (!text(t["description"]).empty()) out << "<dt>description</dt><dd>" << e(t["description"]) << "</dd>\n";
  out << "<dt>file</dt><dd><code>" << e(t["file"]) << "</code></dd>\n"
      << "<dt>seed</dt><dd>" << e(t["seed"]) << "</dd>\n"
      << "<dt>variant</dt><dd>" << e(t["variant"]) << "</dd>\n"
      << "<dt>result</dt><dd class=\"" << (passed ? "pass\">PASS" : "fail\">FAIL") << "</dd>\n"
      << "<dt>trace hash</dt><dd><code>" << e(t["trace_hash"]) << "</code></dd>\n";
  if (t.contains("commit")) out << "<dt>commit</dt><dd><code>" << e(t["commit"]) << "</code></dd>\n";
  out << "<dt>replay</dt><dd><code>" << e(t["command"]) << "</code></dd>\n"
      << "<dt>virtual duration</dt><dd>" << e(t["virtual_duration_ms"]) << " ms</dd>\n</dl>\n";
}

void failures(const json& t, int level, std::ostringstream& out) {
  if (t["failures"].empty()) return;
  out << heading(level, "Failures") << "<ul class=\"failures\">\n";
  for (const json& f : t["failures"]) {
    out << "<li><span class=\"fail\">" << e(f["property"]) << "</span>";
    if (!text(f["step"]).empty()) out << " at step <code>" << e(f["step"]) << "</code>";
    if (!text(f["partition"]).empty()) out << ", partition <code>" << e(f["partition"]) << "</code>";
    if (!f["events"].empty()) out << " (events " << e(joined(f["events"])) << ")";
    out << ": " << e(f["detail"]) << "</li>\n";
  }
  out << "</ul>\n";
}

void model_answer(const json& t, int level, std::ostringstream& out) {
  out << heading(level, "The model's answer");
  size_t shown = 0, disagreeing_events = 0;
  for (const json& a : t["model_answers"]) shown += a.value("highlighted", false) ? 1 : 0;
  for (const json& ev : t["events"]) disagreeing_events += ev.contains("agrees") && !ev["agrees"].get<bool>() ? 1 : 0;
  if (shown == 0 && disagreeing_events == 0) {
    out << "<p>Every one of the " << t["model_answers"].size()
        << " answered items, and every storage verdict, agrees with the reference model.</p>\n";
    return;
  }
  out << "<p>What the reference model (<code>model/model.h</code>) says the failing steps should have answered, "
         "beside what the client received.</p>\n";
  if (shown) {
    out << table_begin({"step", "request", "item", "partition", "txn", "the client saw",
                        "the model's answer (asked when the request arrived)", "what storage's verdicts allow",
                        "because"});
    for (const json& a : t["model_answers"]) {
      if (!a.value("highlighted", false)) continue;
      const bool agrees = a.value("agrees", false);
      out << "<tr" << (agrees ? "" : " class=\"hl\"") << "><td class=\"id\">" << e(a["step"]) << "</td><td>"
          << e(a["request"]) << "</td><td>" << e(a["item"]) << "</td><td class=\"id\">" << e(a["partition"])
          << "</td><td class=\"id\">" << e(a["transaction_id"])
          << "</td><td class=\"text\">" << e(a["got_status"]) << " " << e(a["got_message_id"])
          << "</td><td class=\"text\">" << e(a.value("model_on_arrival", json())) << "</td><td class=\"text\">"
          << (a["model_statuses"].empty() ? "nothing" : e(joined(a["model_statuses"])))
          << (a["model_message_ids"].empty() ? "" : " with id " + e(joined(a["model_message_ids"])))
          << (agrees ? " (agrees)" : "") << "</td><td class=\"text\">" << e(a["because"]) << "</td></tr>\n";
    }
    out << table_end();
  }
  if (disagreeing_events) {
    out << table_begin({"event", "partition", "step", "storage answered", "the model answers"});
    for (const json& ev : t["events"]) {
      if (!ev.contains("agrees") || ev["agrees"].get<bool>()) continue;
      out << "<tr class=\"hl\"><td>" << e(ev["index"]) << "</td><td class=\"id\">" << e(ev["partition"])
          << "</td><td class=\"id\">" << e(ev["step"]) << "</td><td class=\"text\">" << e(ev["answer"]) << "</td><td class=\"text\">"
          << e(ev["model"]) << "</td></tr>\n";
    }
    out << table_end();
  }
}

void steps(const json& t, int level, std::ostringstream& out) {
  out << heading(level, "Timeline")
      << "<p>Every step in order (children of <code>parallel</code> and <code>sequence</code> indented), "
         "virtual ms since the run began.</p>\n"
      << table_begin({"step", "op", "arguments", "issued ms", "answered ms", "responses", "faults"});
  for (const json& s : t["steps"]) {
    const std::string id = text(s["id"]);
    out << "<tr" << row_class(s, !s["faults"].empty()) << "><td class=\"text\" style=\"padding-left:"
        << 0.5 + 1.2 * s.value("depth", 0) << "rem\">" << html_escape(id.empty() || id[0] == '#' ? "(" + text(s["path"]) + ")" : id)
        << "</td><td>" << e(s["op"]) << "</td><td class=\"text\">" << e(s["summary"]) << "</td><td>"
        << e(s["started_ms"]) << "</td><td>" << e(s["ended_ms"]) << "</td><td class=\"text\">";
    for (const json& r : s["responses"]) {
      out << e(r["index"]) << ": " << e(r["status"]) << " <code>" << e(r["message_id"]) << "</code><br>";
    }
    out << e(s["answer"]) << "</td><td class=\"text\">";
    for (const json& f : s["faults"]) out << e(f) << "<br>";
    out << "</td></tr>\n";
  }
  out << table_end();
}

void events(const json& t, int level, std::ostringstream& out) {
  out << heading(level, "Storage events")
      << "<p>Every storage transaction in commit order, as the history recorded it; the model's verdict beside "
         "storage's for every push.</p>\n"
      << table_begin({"#", "kind", "at ms", "partition", "step", "what happened", "storage answered",
                      "the model answers"});
  for (const json& ev : t["events"]) {
    out << "<tr" << row_class(ev, false) << "><td>" << e(ev["index"]) << "</td><td>" << e(ev["kind"]) << "</td><td>"
        << e(ev["at_ms"]) << "</td><td class=\"id\">" << e(ev["partition"]) << "</td><td class=\"id\">"
        << e(ev["step"])
        << "</td><td class=\"text\">" << e(ev["summary"]) << "</td><td class=\"text\">"
        << e(ev.value("answer", json())) << "</td><td class=\"text\">" << e(ev.value("model", json())) << "</td></tr>\n";
  }
  out << table_end();
}

}  // namespace

std::optional<Chart> offsets_chart(const json& t) {
  Chart c;
  c.title = "Offsets per partition over virtual time: " + text(t["scenario"]);
  c.x_label = "virtual time (ms)";
  c.y_label = "offset";
  c.style = ChartStyle::points;
  c.integer_y = true;
  c.x_range = std::make_pair(0.0, std::max(1.0, t.value("virtual_duration_ms", 0.0)));
  size_t colour = 0;
  for (const json& p : t["offsets"]) {
    const std::string colour_hex = kPalette[colour++ % std::size(kPalette)];
    ChartSeries stored{text(p["partition"]) + " stored", {}, kPointCircleFilled, colour_hex};
    ChartSeries duplicates{text(p["partition"]) + " duplicate answered", {}, kPointTriangleOpen, colour_hex};
    for (const json& point : p["points"]) {
      const double x = point["at_ms"].get<double>(), y = point["offset"].get<double>();
      (point["kind"] == "duplicate" ? duplicates : stored).points.push_back({x, "", y, y, y});
    }
    for (ChartSeries* s : {&stored, &duplicates}) {
      if (!s->points.empty()) c.series.push_back(std::move(*s));
    }
  }
  if (c.series.empty()) return std::nullopt;
  return c;
}

std::string timeline_section(const json& t, const std::string& chart_svg, const std::string& chart_error, int level) {
  std::ostringstream out;
  header(t, out);
  failures(t, level, out);
  model_answer(t, level, out);
  steps(t, level, out);
  out << heading(level, "Offsets over virtual time");
  if (!chart_svg.empty()) {
    out << "<figure>\n" << chart_svg << "\n<figcaption>Every offset a push stored (filled circles, at the "
        << "storage time of its transaction) and the offset every duplicate answer named (open triangles, when the "
        << "broker answered); one colour per partition. Scenario " << e(t["scenario"]) << ", seed " << e(t["seed"]) << ", variant "
        << e(t["variant"]) << (t.contains("commit") ? ", commit " + e(t["commit"]) : std::string()) << ": <code>"
        << e(t["command"]) << "</code>.</figcaption>\n</figure>\n";
  } else if (!chart_error.empty()) {
    out << "<p class=\"note\">No chart: " << html_escape(chart_error) << ". The tables are complete.</p>\n";
  } else {
    out << "<p>Nothing was stored and no duplicate was answered.</p>\n";
  }
  events(t, level, out);
  return out.str();
}

}  // namespace qdt::reports
