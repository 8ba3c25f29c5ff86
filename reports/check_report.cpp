#include "reports/check_report.h"

#include <cassert>
#include <map>
#include <sstream>

#include "reports/campaign_verdict.h"
#include "reports/coverage_section.h"
#include "reports/failure_groups.h"
#include "reports/failure_text.h"
#include "reports/gnuplot.h"
#include "reports/html_page.h"
#include "reports/timeline_section.h"

namespace qdt::reports {
namespace {

using json = nlohmann::json;

std::string text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string e(const json& v) { return html_escape(text(v)); }

// Seeds run and failed per profile: seed_hashes holds "PROFILE SEED HASH" per seed.
std::map<std::string, std::pair<uint64_t, uint64_t>> per_profile(const json& summary) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> out;
  for (const json& line : summary.value("seed_hashes", json::array())) {
    const std::string s = line.get<std::string>();
    out[s.substr(0, s.find(' '))].first++;
  }
  for (const json& f : summary["failures"]) out[f["profile"].get<std::string>()].second++;
  return out;
}

// The metrics the text summary prints, in its order and words.
constexpr std::pair<const char*, const char*> kMetrics[] = {
    {"storage_pushes", "storage pushes"},
    {"probes_run", "probes run"},
    {"probes_skipped", "probes skipped by a watermark"},
    {"sidecar_rows_scanned", "sidecar rows scanned"},
    {"cache_vouched", "cache: vouched"},
    {"cache_answers", "cache: answers"},
    {"cache_hydrations_full", "cache: full hydrations"},
    {"cache_hydrations_span", "cache: span hydrations"},
    {"cache_evictions", "cache: evictions"},
    {"cache_suppressed_partitions", "cache: suppressed partitions"},
    {"storage_statements", "storage statements"},
    {"storage_busy_waits", "waits for a lock (SQLITE_BUSY)"},
    {"storage_faults_injected", "storage faults injected"},
    {"storage_push_failures", "failed push transactions"},
};

// "1 step", "5 steps".
std::string steps_text(const json& steps) { return e(steps) + (steps == 1 ? " step" : " steps"); }

std::string timeline_of(size_t i, const json& failures, const std::vector<json>& timelines, const ChartsRendered& drawn,
                        const std::vector<int>& chart_of) {
  const json& f = failures[i];
  const std::string svg = drawn.ok && chart_of[i] >= 0 ? drawn.svgs[static_cast<size_t>(chart_of[i])] : "";
  return "<section id=\"failure-" + std::to_string(i) + "\">\n<h4>The story of " + e(f["profile"]) + " seed " +
         e(f["seed"]) + ", shrunk to " + steps_text(f["steps"]) + "</h4>\n" +
         timeline_section(timelines[i], svg, drawn.ok ? "" : drawn.error, 5) + "</section>\n";
}

// What failed, a group per cause, most seeds first: the rule in words, how
// many seeds and which profiles, the smallest shrunk scenario, the command
// that replays it, and its story step by step. Returns the failures whose
// story it told.
std::vector<bool> groups_section(std::ostringstream& out, const json& failures, const std::vector<json>& timelines,
                                 const ChartsRendered& drawn, const std::vector<int>& chart_of) {
  std::vector<bool> told(failures.size(), false);
  const std::vector<FailureGroup> groups = failure_groups(failures);
  out << "<h2 id=\"groups\">What failed</h2>\n<p>" << failures.size() << " failing seed"
      << (failures.size() == 1 ? "" : "s") << " in " << groups.size() << " group" << (groups.size() == 1 ? "" : "s")
      << ", one per rule broken and kind of step, most seeds first.</p>\n";
  for (size_t g = 0; g < groups.size(); ++g) {
    const FailureGroup& group = groups[g];
    const json& first = failures[group.smallest.value_or(group.members.front())];
    std::string profiles;
    for (const std::string& p : group.profiles) profiles += (profiles.empty() ? "" : ", ") + html_escape(p);
    out << "<section class=\"group\" id=\"group-" << g << "\">\n<h3>" << group.members.size() << " seed"
        << (group.members.size() == 1 ? "" : "s") << ": <code>" << html_escape(group.cause) << "</code></h3>\n";
    if (const std::string rule = failure_rule_html(first); !rule.empty()) out << "<p>" << rule << "</p>\n";
    else out << "<p>" << e(first["detail"]) << "</p>\n";
    if (first.contains("why")) out << "<p><strong>Likely cause:</strong> " << e(first["why"]) << "</p>\n";
    out << "<dl>\n<dt>profiles</dt><dd>" << profiles << "</dd>\n";
    if (group.smallest) {
      out << "<dt>smallest shrunk scenario</dt><dd><code>" << e(first["file"]) << "</code> (" << steps_text(first["steps"])
          << ")</dd>\n<dt>replay it</dt><dd><code>" << e(first["replay"]) << "</code></dd>\n";
    } else if (first.contains("check")) {
      out << "<dt>shrink one</dt><dd><code>" << e(first["check"]) << "</code></dd>\n";
    }
    out << "</dl>\n";
    if (group.smallest && !timelines[*group.smallest].is_null()) {
      out << timeline_of(*group.smallest, failures, timelines, drawn, chart_of);
      told[*group.smallest] = true;
    }
    out << "</section>\n";
  }
  return told;
}

// Every failing seed in a table, then the story of each shrunk one the groups did not tell.
std::string failures_section(const json& failures, const std::vector<json>& timelines, const ChartsRendered& drawn,
                             const std::vector<int>& chart_of) {
  std::ostringstream out;
  if (!drawn.ok) out << "<p class=\"note\">No charts: " << html_escape(drawn.error) << ". The tables are complete.</p>\n";
  const std::vector<bool> told = groups_section(out, failures, timelines, drawn, chart_of);
  out << "<h2 id=\"failures\">Every failing seed</h2>\n"
      << table_begin({"profile", "seed", "property", "detail", "shrunk to", "replay"});
  for (size_t i = 0; i < failures.size(); ++i) {
    const json& f = failures[i];
    out << "<tr class=\"hl\"><td>" << e(f["profile"]) << "</td><td>" << e(f["seed"]) << "</td><td>"
        << e(f["property"]) << "</td><td class=\"text\">"
        << (f.contains("explanation") ? failure_rule_html(f) + "<br>" : std::string()) << e(f["detail"])
        << (f.contains("why") ? "<br><strong>Likely cause:</strong> " + e(f["why"]) : std::string()) << "</td><td>"
        << (f.contains("steps") ? e(f["steps"]) + " steps" : std::string("not shrunk")) << "</td><td class=\"text\">"
        << (f.contains("replay")  ? "<a href=\"#failure-" + std::to_string(i) + "\"><code>" + e(f["replay"]) +
                                         "</code></a>"
            : f.contains("check") ? "shrink it with <code>" + e(f["check"]) + "</code>"
                                  : std::string())
        << "</td></tr>\n";
  }
  out << table_end();
  for (size_t i = 0; i < failures.size(); ++i) {
    if (!timelines[i].is_null() && !told[i]) out << timeline_of(i, failures, timelines, drawn, chart_of);
  }
  return out.str();
}

}  // namespace

std::string check_html(const json& summary, const std::vector<json>& timelines, const std::string& command,
                       const std::string& commit, const std::string& gnuplot) {
  const json& failures = summary["failures"];
  assert(timelines.size() == failures.size());
  // One gnuplot run draws every failure's chart.
  std::vector<Chart> charts;
  std::vector<int> chart_of(timelines.size(), -1);
  for (size_t i = 0; i < timelines.size(); ++i) {
    if (timelines[i].is_null()) continue;
    if (std::optional<Chart> c = offsets_chart(timelines[i])) {
      chart_of[i] = static_cast<int>(charts.size());
      charts.push_back(std::move(*c));
    }
  }
  const ChartsRendered drawn = render_charts(charts, gnuplot);
  const uint64_t failed = summary["failed"].get<uint64_t>();
  const Verdict verdict = campaign_verdict(summary);

  std::ostringstream out;
  out << page_begin("qdt check: " + text(summary["profile"]) + " (" + verdict.word + ")");
  out << "<h1>qdt check: " << e(summary["profile"]) << " <span class=\"" << (verdict.held ? "pass" : "fail") << "\">"
      << verdict.word << "</span></h1>\n";
  // Why a campaign without a failed seed still did not pass: the exit code's reasons, first.
  for (const std::string& reason : verdict.reasons) out << "<p class=\"fail\">" << html_escape(reason) << "</p>\n";
  if (!verdict.idle.empty()) {
    out << "<p>Judged no event (the profiles drew none): " << html_escape(verdict.idle) << ".</p>\n";
  }
  out << "<h2>What was run</h2>\n<dl>\n"
      << "<dt>command</dt><dd><code>" << html_escape(command) << "</code></dd>\n"
      << "<dt>profile</dt><dd>" << e(summary["profile"]) << "</dd>\n"
      << "<dt>variant</dt><dd>" << e(summary["variant"]) << "</dd>\n";
  if (summary.contains("cache_module")) {
    const auto& m = summary["cache_module"];
    out << "<dt>cache module</dt><dd><code>" << e(m["path"]) << "</code> (xxh128 <code>" << e(m["content_xxh128"])
        << "</code>), " << e(m["caller"]) << " caller</dd>\n";
  }
  if (summary.contains("sql")) {
    // Which SQL the verdicts are about, and what of qdt's contract it could not be asked.
    const auto& q = summary["sql"];
    const std::string named = q.value("named_as", std::string());
    out << "<dt>SQL</dt><dd>" << (named.empty() ? std::string("qdt's own") : "<code>" + html_escape(named) + "</code>");
    if (!q.value("content_xxh128", std::string()).empty()) out << " (xxh128 <code>" << e(q["content_xxh128"]) << "</code>)";
    out << "</dd>\n";
    for (const auto& m : q.value("cannot_express", nlohmann::json::array())) {
      out << "<dt>cannot express</dt><dd>" << html_escape(m.get<std::string>()) << "</dd>\n";
    }
    const auto& metrics = summary.value("metrics", nlohmann::json::object());
    out << "<dt>server messages</dt><dd>" << metrics.value("server_notices", 0) << " notices and "
        << metrics.value("server_warnings", 0) << " warnings during the runs";
    const auto lines = q.value("server_messages", nlohmann::json::array());
    if (!lines.empty()) {
      out << "; while the SQL was loaded:<ul>";
      for (const auto& line : lines) out << "<li><code>" << html_escape(line.get<std::string>()) << "</code></li>";
      out << "</ul>";
    }
    out << "</dd>\n";
  }
  out << "<dt>seeds</dt><dd>" << e(summary["seeds_run"]) << " from seed " << e(summary["first_seed"]) << " (shard "
      << e(summary["shard"]) << ", " << e(summary["jobs"]) << " jobs)"
      << (summary.value("out_of_time", false) ? ", stopped by --time-budget" : "") << "</dd>\n"
      << "<dt>passed</dt><dd class=\"pass\">" << e(summary["passed"]) << "</dd>\n"
      << "<dt>failed</dt><dd" << (failed ? " class=\"fail\"" : "") << ">" << failed << "</dd>\n"
      << "<dt>campaign digest</dt><dd><code>" << e(summary["campaign_digest"]) << "</code></dd>\n";
  if (!commit.empty()) out << "<dt>commit</dt><dd><code>" << html_escape(commit) << "</code></dd>\n";
  out << "</dl>\n";

  // Failures come before the counts and the long coverage table: red at the top means a broken property.
  if (failures.empty() && verdict.held) out << "<p class=\"pass\">No failure: every seed held every property.</p>\n";
  else out << failures_section(failures, timelines, drawn, chart_of);
  out << "<h2>Per profile</h2>\n" << table_begin({"profile", "seeds", "failed"});
  for (const auto& [profile, counts] : per_profile(summary)) {
    out << "<tr" << (counts.second ? " class=\"hl\"" : "") << "><td>" << html_escape(profile) << "</td><td>"
        << counts.first << "</td><td>" << counts.second << "</td></tr>\n";
  }
  out << table_end() << "<h2>Summed over every seed</h2>\n" << table_begin({"metric", "total"});
  const json& metrics = summary.value("metrics", json::object());
  for (const auto& [key, words] : kMetrics) {
    out << "<tr><th>" << html_escape(words) << "</th><td>" << e(metrics.value(key, json(0))) << "</td></tr>\n";
  }
  out << table_end() << coverage_section(summary);
  out << page_end();
  return out.str();
}

}  // namespace qdt::reports
