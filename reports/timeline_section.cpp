#include "reports/timeline_section.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "reports/failure_text.h"
#include "reports/html_page.h"
#include "reports/virtual_time.h"

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

// A virtual time read at its scale, the exact milliseconds on hover; what is
// not a number (a step never answered) as it is.
std::string time_cell(const json& ms) {
  if (!ms.is_number_integer()) return e(ms);
  const int64_t v = ms.get<int64_t>();
  return "<span title=\"" + std::to_string(v) + " ms\">" + html_escape(virtual_time_text(v)) + "</span>";
}

// A chart label short enough to stay inside the chart, cut between UTF-8 characters; the tables keep it whole.
std::string shortened(std::string label) {
  constexpr size_t kMaxLabel = 34;
  if (label.size() <= kMaxLabel) return label;
  size_t cut = kMaxLabel;
  while (cut > 0 && (static_cast<unsigned char>(label[cut]) & 0xC0) == 0x80) --cut;
  return label.substr(0, cut) + "...";
}

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
      << "<dt>virtual duration</dt><dd>" << time_cell(t["virtual_duration_ms"]) << "</dd>\n</dl>\n";
}

void failures(const json& t, int level, std::ostringstream& out) {
  if (t["failures"].empty()) return;
  out << heading(level, "Failures") << "<ul class=\"failures\">\n";
  for (const json& f : t["failures"]) {
    out << "<li><span class=\"fail\">" << e(f["property"]) << "</span>";
    if (!text(f["step"]).empty()) out << " at step <code>" << e(f["step"]) << "</code>";
    if (!text(f["partition"]).empty()) out << ", partition <code>" << e(f["partition"]) << "</code>";
    if (!f["events"].empty()) out << " (events " << e(joined(f["events"])) << ")";
    out << ": " << e(f["detail"]);
    if (const std::string rule = failure_rule_html(f); !rule.empty()) out << "<br>" << rule;
    out << "</li>\n";
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

// "before -> after" of one reading, the after in bold when it changed; the
// after is missing when storage lost power before it could be read.
std::string change(const json& state, const char* field) {
  const std::string before = text(state["before"][field]);
  if (state["after"].is_null()) return before + " &rarr; (not read: power lost)";
  const std::string after = text(state["after"][field]);
  if (after == before) return before;
  return before + " &rarr; <strong>" + after + "</strong>";
}

// The partition as each failing push transaction found and left it, read
// under its lock, with the broker's cache watermark it carried: what a
// TLA+ trace shows as the state before and after a step.
void state(const json& t, int level, std::ostringstream& out) {
  constexpr size_t kRowsShown = 30;
  std::vector<const json*> rows;
  for (const json& ev : t["events"]) {
    if (ev.contains("state") && ev.value("highlighted", false)) rows.push_back(&ev);
  }
  if (rows.empty()) return;
  out << heading(level, "State at the failing steps")
      << "<p>Each push transaction of a failing step: its partition as the transaction found it and left it (read "
         "under its lock), and the cache watermark the broker sent with it (below it, storage may skip the "
         "probe). A changed value is in bold.</p>\n"
      << table_begin({"event", "step", "partition", "broker", "cache watermark (window it assumed)",
                      "window in force", "last offset", "sidecar floor (txns_start)",
                      "rows it wrote (segments, sidecar)", "probe", "storage answered"});
  for (size_t i = 0; i < rows.size() && i < kRowsShown; ++i) {
    const json& ev = *rows[i];
    const json& st = ev["state"];
    const int64_t watermark = st["p_verified"].get<int64_t>();
    const int64_t assumed_s = st["window_assumed_s"].get<int64_t>();
    out << "<tr class=\"hl\"><td>" << e(ev["index"]) << "</td><td class=\"id\">" << e(ev["step"])
        << "</td><td class=\"id\">" << e(ev["partition"]) << "</td><td>" << e(st["broker"]) << "</td><td>"
        << (watermark < 0 ? std::string("none (-1)")
                          : std::to_string(watermark) + (assumed_s >= 0 ? " (" + std::to_string(assumed_s) + " s)" : ""))
        << "</td><td>" << e(st["window_s"]) << " s</td><td>" << change(st, "last_offset") << "</td><td>"
        << change(st, "txns_start") << "</td><td>"
        << (st.contains("segments_written")
                ? e(st["segments_written"]) + ", " + e(st["sidecar_rows_written"])
                : std::string("not read"))
        << "</td><td>"
        << (st["probe_ran"].get<bool>() ? "ran, " + e(st["rows_scanned"]) + " rows scanned" : std::string("skipped"))
        << "</td><td class=\"text\">"
        << (st["failed"].get<bool>() ? std::string("failed: nothing committed") : e(ev.value("answer", json())))
        << "</td></tr>\n";
  }
  out << table_end();
  if (rows.size() > kRowsShown) {
    out << "<p class=\"note\">" << rows.size() - kRowsShown << " more in the storage events below.</p>\n";
  }
}

void steps(const json& t, int level, std::ostringstream& out) {
  out << heading(level, "Timeline")
      << "<p>Every step in order (children of <code>parallel</code> and <code>sequence</code> indented), "
         "with its virtual time since the run began.</p>\n"
      << table_begin({"step", "op", "arguments", "issued (virtual)", "answered (virtual)", "responses", "faults"});
  for (const json& s : t["steps"]) {
    const std::string id = text(s["id"]);
    out << "<tr" << row_class(s, !s["faults"].empty()) << "><td class=\"text\" style=\"padding-left:"
        << 0.5 + 1.2 * s.value("depth", 0) << "rem\">" << html_escape(id.empty() || id[0] == '#' ? "(" + text(s["path"]) + ")" : id)
        << "</td><td>" << e(s["op"]) << "</td><td class=\"text\">" << e(s["summary"]) << "</td><td>"
        << time_cell(s["started_ms"]) << "</td><td>" << time_cell(s["ended_ms"]) << "</td><td class=\"text\">";
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
      << table_begin({"#", "kind", "at (virtual)", "partition", "step", "what happened", "storage answered",
                      "the model answers"});
  for (const json& ev : t["events"]) {
    out << "<tr" << row_class(ev, false) << "><td>" << e(ev["index"]) << "</td><td>" << e(ev["kind"]) << "</td><td>"
        << time_cell(ev["at_ms"]) << "</td><td class=\"id\">" << e(ev["partition"]) << "</td><td class=\"id\">"
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
  const double duration_ms = std::max(1.0, t.value("virtual_duration_ms", 0.0));
  const TimeScale scale = time_scale_for(duration_ms);
  c.x_label = "virtual time (" + scale.unit + " since the run began)";
  c.y_label = "offset";
  c.style = ChartStyle::points;
  c.integer_y = true;
  const double duration = duration_ms;
  c.x_range = std::make_pair(0.0, duration);
  std::vector<ChartSeries> windows, marks;
  double y_lo = 0, y_hi = 0;
  size_t colour = 0;
  for (const json& p : t["offsets"]) {
    const std::string colour_hex = kPalette[colour++ % std::size(kPalette)];
    const std::string partition = text(p["partition"]);
    ChartSeries stored{partition + " stored", {}, kPointCircleFilled, colour_hex};
    ChartSeries duplicates{partition + " duplicate answered", {}, kPointTriangleOpen, colour_hex};
    ChartSeries window{partition + " dedup window", {}, kPointCircleFilled, colour_hex,
                       SeriesMark::band};
    std::set<std::string> window_texts;
    for (const json& point : p["points"]) {
      const double x = point["at_ms"].get<double>(), y = point["offset"].get<double>();
      y_hi = std::max(y_hi, y);
      (point["kind"] == "duplicate" ? duplicates : stored).points.push_back({x, "", y, y, y});
      // The window runs on past the chart's end when it is longer than the run; gnuplot clips it.
      if (const double w = point.value("window_ms", 0.0); point["kind"] == "stored" && w > 0) {
        window.points.push_back({x, "", y, y - 0.3, y + 0.3, x, x + w});
        const auto ms = static_cast<long long>(w);
        window_texts.insert(ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms");
      }
    }
    if (window_texts.size() == 1) window.title += " (" + *window_texts.begin() + ")";
    for (ChartSeries* s : {&window}) {
      if (!s->points.empty()) windows.push_back(std::move(*s));
    }
    for (ChartSeries* s : {&stored, &duplicates}) {
      if (!s->points.empty()) marks.push_back(std::move(*s));
    }
  }
  if (marks.empty()) return std::nullopt;
  // Every attempt of a retried push is its own point, at the time the broker received it and the offset it
  // stored or was answered; a push delivered once is its stored circle already.
  std::map<std::string, int> deliveries;
  for (const json& a : t.value("attempts", json::array())) ++deliveries[text(a["step"])];
  ChartSeries attempts{"attempts of retried pushes", {}, kPointCross, "#000000"};
  attempts.labelled = true;
  for (const json& a : t.value("attempts", json::array())) {
    if (deliveries[text(a["step"])] < 2) continue;
    const double y = a["offset"].is_null() ? -0.5 : a["offset"].get<double>();
    y_lo = std::min(y_lo, y);
    const std::string label = text(a["step"]) + " attempt " + text(a["attempt"]) +
                              (text(a["outcome"]).empty() ? "" : ": " + text(a["outcome"]));
    attempts.points.push_back({a["at_ms"].get<double>(), label, y, y, y});
  }
  // Faults span the whole height, labelled at their left edge at one of three heights so that labels of
  // faults close in time do not overprint; an instant gets a visible width.
  ChartSeries faults{"faults", {}, kPointCircleFilled, "#A04000", SeriesMark::band};
  faults.labelled = true;
  const double top = y_hi + 0.45, bottom = y_lo - 0.45, step = (top - bottom) / 4;
  for (const json& f : t.value("fault_spans", json::array())) {
    const double from = f["from_ms"].get<double>(), to = std::max(f["to_ms"].get<double>(), from + duration / 150);
    const double label_y = top - step * (0.5 + static_cast<double>(faults.points.size() % 3));
    faults.points.push_back({from, shortened(text(f["label"])), label_y, bottom, top, from, to});
  }
  for (ChartSeries& s : windows) c.series.push_back(std::move(s));
  if (!faults.points.empty()) c.series.push_back(std::move(faults));
  for (ChartSeries& s : marks) c.series.push_back(std::move(s));
  if (!attempts.points.empty()) c.series.push_back(std::move(attempts));
  // Drawn in the axis's unit: every x of every series, bands' extents too.
  for (ChartSeries& series : c.series) {
    for (ChartPoint& point : series.points) {
      point.x /= scale.ms_per_unit;
      point.x_lo /= scale.ms_per_unit;
      point.x_hi /= scale.ms_per_unit;
    }
  }
  c.x_range = std::make_pair(0.0, duration / scale.ms_per_unit);
  return c;
}

std::string timeline_section(const json& t, const std::string& chart_svg, const std::string& chart_error, int level) {
  std::ostringstream out;
  header(t, out);
  failures(t, level, out);
  model_answer(t, level, out);
  state(t, level, out);
  steps(t, level, out);
  out << heading(level, "Offsets over virtual time");
  if (!chart_svg.empty()) {
    out << "<figure>\n" << chart_svg << "\n<figcaption>Every offset a push stored (filled circles, at the "
        << "storage time of its transaction) and the offset every duplicate answer named (open triangles, when the "
        << "broker answered); one colour per partition. The band after a stored offset is its dedup window: a repeat "
        << "of its key inside the band must be answered duplicate. Each attempt of a push is a cross at the time the "
        << "broker received it, at the offset it stored or was answered (below 0 when neither); shaded spans are "
        << "faults (a lost response until the next attempt, a crash, a storage or network fault). Scenario " << e(t["scenario"]) << ", seed " << e(t["seed"]) << ", variant "
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
