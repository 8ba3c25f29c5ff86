#include "reports/replay_report.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "reports/check_report.h"
#include "reports/timeline_section.h"

namespace qdt::reports {
namespace {

using json = nlohmann::json;

constexpr const char* kHostile = "<script>alert('x')</script> & \"q\"";
constexpr const char* kNoGnuplot = "/nonexistent/gnuplot";

// A timeline document as sim/scenario/timeline.h writes it: two pushes, the second
// failing under a variant when `failing`.
json document(bool failing) {
  json steps = json::array();
  steps.push_back({{"id", "p1"}, {"path", "/steps/0"}, {"depth", 0}, {"op", "push"}, {"summary", kHostile},
                   {"started_ms", 0}, {"ended_ms", 5}, {"answer", ""}, {"faults", json::array()},
                   {"responses", {{{"index", 0}, {"status", "queued"}, {"message_id", "id-1"}, {"transaction_id", "t"}}}},
                   {"highlighted", false}});
  steps.push_back({{"id", "#/steps/1"}, {"path", "/steps/1"}, {"depth", 0}, {"op", "crash_broker"},
                   {"summary", "broker 0"}, {"started_ms", 5}, {"ended_ms", 5}, {"answer", ""},
                   {"faults", {"crash_broker: broker 0"}}, {"responses", json::array()}, {"highlighted", false}});
  steps.push_back({{"id", "p2"}, {"path", "/steps/2"}, {"depth", 1}, {"op", "push"}, {"summary", "again"},
                   {"started_ms", 5}, {"ended_ms", 9}, {"answer", ""}, {"faults", json::array()},
                   {"responses", {{{"index", 0}, {"status", failing ? "duplicate" : "queued"},
                                   {"message_id", failing ? "id-1" : "id-2"}, {"transaction_id", "t"}}}},
                   {"highlighted", failing}});
  json events = json::array();
  for (int i = 0; i < 2; ++i) {
    events.push_back({{"index", i}, {"kind", "push"}, {"at_ms", 2 + 5 * i}, {"partition", "q/Default"},
                      {"step", i ? "p2" : "p1"}, {"summary", "1 frames [t]"}, {"answer", "queued at base " + std::to_string(i)},
                      {"model", i && failing ? "duplicate [0->0]" : "queued at base " + std::to_string(i)},
                      {"agrees", !(i && failing)}, {"highlighted", i && failing}, {"in_failing_partition", failing},
                      {"state", {{"broker", 0}, {"p_verified", i ? 0 : -1}, {"window_assumed_s", 60}, {"window_s", 60},
                                 {"failed", false}, {"probe_ran", !failing}, {"rows_scanned", 1},
                                 {"before", {{"last_offset", i - 1}, {"txns_start", 0}}}, {"after", {{"last_offset", i}, {"txns_start", 0}}},
                                 {"segments_written", 1}, {"sidecar_rows_written", 1}}}});
  }
  json failures = json::array();
  if (failing) {
    failures.push_back({{"kind", "property"}, {"property", "model-agreement"}, {"step", "p2"},
                        {"partition", "q/Default"}, {"detail", "event 1: model answers duplicate"}, {"events", {1}},
                        {"rule", "model-agreement/duplicate-answered-queued"}, {"event", 1},
                        {"explanation", std::string("Stored twice ") + kHostile}, {"expected", "duplicate"},
                        {"actual", std::string("queued ") + kHostile}});
  }
  return {{"kind", "qdt-timeline"}, {"scenario", std::string("name ") + kHostile}, {"description", kHostile},
          {"file", "s.json"}, {"seed", 7}, {"variant", failing ? "skip-probe" : "none"}, {"passed", !failing},
          {"trace_hash", "00ff"}, {"commit", "c0ffee"}, {"command", "qdt replay s.json"}, {"virtual_duration_ms", 9},
          {"failures", failures}, {"steps", steps}, {"events", events},
          {"offsets", {{{"partition", "q/Default"},
                        {"points", {{{"at_ms", 2}, {"offset", 0}, {"kind", "stored"}, {"step", "p1"}},
                                    {{"at_ms", 9}, {"offset", 0}, {"kind", failing ? "duplicate" : "stored"}, {"step", "p2"}}}}}}},
          {"model_answers", {{{"step", "p2"}, {"request", 2}, {"item", 0}, {"partition", "q/Default"},
                              {"transaction_id", "t"}, {"got_status", failing ? "duplicate" : "queued"},
                              {"got_message_id", "id-1"}, {"model_statuses", {"queued"}}, {"model_message_ids", json::array()},
                              {"model_on_arrival", "queued: no message of key t within the 60 s window"},
                              {"because", "fresh"}, {"agrees", !failing}, {"highlighted", failing}}}}};
}

TEST(ReplayReport, HostileStringsAreEscapedEverywhere) {
  const std::string html = replay_html(document(true), kNoGnuplot);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"), std::string::npos);
  EXPECT_NE(html.find("<title>qdt replay: name &lt;script&gt;"), std::string::npos);
}

TEST(ReplayReport, FailingDocumentHighlightsTheOffendingRowsBesideTheModelsAnswer) {
  const std::string html = replay_html(document(true), kNoGnuplot);
  EXPECT_NE(html.find("<span class=\"fail\">FAIL</span>"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"hl\"><td class=\"text\" style=\"padding-left:1.7rem\">p2</td>"), std::string::npos)
      << "the failing step's timeline row";
  EXPECT_NE(html.find("<tr class=\"hl\"><td>1</td><td>push</td>"), std::string::npos) << "its storage event";
  EXPECT_NE(html.find("<tr class=\"part\"><td>0</td>"), std::string::npos) << "the rest of its partition";
  EXPECT_NE(html.find("The model&#39;s answer"), std::string::npos);
  EXPECT_NE(html.find("queued: no message of key t within the 60 s window"), std::string::npos);
  EXPECT_NE(html.find("duplicate [0-&gt;0]"), std::string::npos) << "the model's verdict beside storage's";
  EXPECT_NE(html.find("model-agreement</span> at step <code>p2</code>"), std::string::npos);
  // The rule and its explanation, and both answers, from the document's fields.
  EXPECT_NE(html.find("<br><code>model-agreement/duplicate-answered-queued</code> Stored twice &lt;script&gt;"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("expected <strong>duplicate</strong>, got <strong>queued &lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("(/steps/1)"), std::string::npos) << "a step without an id shows its path";
  EXPECT_NE(html.find("<tr class=\"fault\">"), std::string::npos);
  // The state view of the failing push: its partition before and after, and the watermark it carried.
  EXPECT_NE(html.find("State at the failing steps"), std::string::npos);
  EXPECT_NE(html.find("<td>0 &rarr; <strong>1</strong></td>"), std::string::npos) << "last offset 0 -> 1";
  EXPECT_NE(html.find("<td>0 (60 s)</td>"), std::string::npos) << "the watermark and the window it assumed";
  EXPECT_NE(html.find("<td>skipped</td>"), std::string::npos) << "the probe the watermark skipped";
  EXPECT_NE(html.find("<td>1, 1</td>"), std::string::npos) << "the rows it wrote";
  EXPECT_EQ(replay_html(document(false), kNoGnuplot).find("State at the failing steps"), std::string::npos)
      << "a passing run has no failing step";
}

TEST(ReplayReport, PassingDocumentHighlightsNothing) {
  const std::string html = replay_html(document(false), kNoGnuplot);
  EXPECT_NE(html.find("<span class=\"pass\">PASS</span>"), std::string::npos);
  EXPECT_EQ(html.find("class=\"hl\""), std::string::npos);
  EXPECT_EQ(html.find("class=\"part\""), std::string::npos);
  EXPECT_EQ(html.find("<h2>Failures</h2>"), std::string::npos);
  EXPECT_NE(html.find("agrees with the reference model"), std::string::npos);
}

TEST(ReplayReport, WithoutGnuplotThePageSaysSoAndKeepsTheTables) {
  const std::string html = replay_html(document(true), kNoGnuplot);
  EXPECT_NE(html.find("gnuplot is not installed"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("name=\"viewport\""), std::string::npos);
  EXPECT_EQ(std::count(html.begin(), html.end(), '\n') > 20, true);
}

TEST(ReplayReport, OffsetsChartHasAStoredAndADuplicateSeriesPerPartition) {
  const std::optional<Chart> c = offsets_chart(document(true));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->style, ChartStyle::points);
  ASSERT_EQ(c->series.size(), 2u);
  EXPECT_EQ(c->series[0].title, "q/Default stored");
  EXPECT_EQ(c->series[1].title, "q/Default duplicate answered");
  EXPECT_NE(c->series[0].point_type, c->series[1].point_type);
  EXPECT_EQ(c->series[0].color, c->series[1].color);
  EXPECT_EQ(c->x_label, "virtual time (ms since the run began)");  // a run of less than 10 s
  const std::string script = gnuplot_script({*c});
  EXPECT_NE(script.find("with points pt 8"), std::string::npos);
  EXPECT_NE(script.find("set ytics 1"), std::string::npos);
  json empty = document(false);
  empty["offsets"] = json::array();
  EXPECT_FALSE(offsets_chart(empty));
}

// A run of an hour is drawn in minutes: every x, the bands' extents and the range.
TEST(ReplayReport, OffsetsChartOfALongRunIsDrawnInMinutes) {
  json doc = document(true);
  doc["virtual_duration_ms"] = 3'600'000;
  doc["offsets"][0]["points"][0]["at_ms"] = 1'800'000;
  doc["offsets"][0]["points"][0]["window_ms"] = 60'000;
  const std::optional<Chart> c = offsets_chart(doc);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->x_label, "virtual time (min since the run began)");
  ASSERT_TRUE(c->x_range);
  EXPECT_DOUBLE_EQ(c->x_range->second, 60.0);
  bool saw_band = false, saw_point = false;
  for (const ChartSeries& series : c->series) {
    for (const ChartPoint& point : series.points) {
      if (series.mark == SeriesMark::band && point.x_hi > 0) {
        saw_band = true;
        EXPECT_DOUBLE_EQ(point.x_lo, 30.0);
        EXPECT_DOUBLE_EQ(point.x_hi, 31.0);
      } else if (point.x == 30.0) {
        saw_point = true;
      }
    }
  }
  EXPECT_TRUE(saw_band);
  EXPECT_TRUE(saw_point);
}

TEST(ReplayReport, OffsetsChartDrawsTheWindowTheFaultsAndEachAttemptOfARetry) {
  json doc = document(true);
  doc["offsets"][0]["points"][0]["window_ms"] = 60'000;
  doc["attempts"] = {{{"step", "p2"}, {"attempt", 1}, {"partition", "q/Default"}, {"at_ms", 3}, {"offset", json()},
                      {"outcome", "response lost"}},
                     {{"step", "p2"}, {"attempt", 2}, {"partition", "q/Default"}, {"at_ms", 8}, {"offset", 0},
                      {"outcome", "duplicate"}},
                     {{"step", "p1"}, {"attempt", 1}, {"partition", "q/Default"}, {"at_ms", 1}, {"offset", 0},
                      {"outcome", "queued"}}};
  doc["fault_spans"] = {{{"from_ms", 4}, {"to_ms", 8}, {"label", std::string("attempt 1: ") + kHostile}, {"step", "p2"}},
                        {{"from_ms", 5}, {"to_ms", 5}, {"label", "crash_broker: broker 0"}, {"step", "/steps/1"}}};
  const std::optional<Chart> c = offsets_chart(doc);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->series.size(), 5u);  // window, faults, stored, duplicate, attempts
  const ChartSeries& window = c->series[0];
  EXPECT_EQ(window.mark, SeriesMark::band);
  EXPECT_EQ(window.title, "q/Default dedup window (60 s)");
  ASSERT_EQ(window.points.size(), 1u);
  EXPECT_EQ(window.points[0].x_lo, 2);
  EXPECT_EQ(window.points[0].x_hi, 60'002);  // past the run's end: the window covers every later repeat
  const ChartSeries& faults = c->series[1];
  EXPECT_EQ(faults.mark, SeriesMark::band);
  EXPECT_TRUE(faults.labelled);
  ASSERT_EQ(faults.points.size(), 2u);
  EXPECT_EQ(faults.points[0].x_lo, 4);
  EXPECT_EQ(faults.points[0].x_hi, 8);
  EXPECT_GT(faults.points[1].x_hi, faults.points[1].x_lo) << "an instant is drawn with a width";
  const ChartSeries& attempts = c->series[4];
  EXPECT_TRUE(attempts.labelled);
  ASSERT_EQ(attempts.points.size(), 2u) << "a push delivered once is not drawn as an attempt";
  EXPECT_EQ(attempts.points[0].label, "p2 attempt 1: response lost");
  EXPECT_EQ(attempts.points[0].mean, -0.5) << "no offset: below the axis";
  EXPECT_EQ(attempts.points[1].label, "p2 attempt 2: duplicate");
  EXPECT_EQ(attempts.points[1].x, 8);
  // Labels reach gnuplot only through the data file.
  const std::string script = gnuplot_script({*c});
  EXPECT_NE(script.find("with boxxyerror"), std::string::npos) << script;
  EXPECT_NE(script.find("using 1:2:5 with labels"), std::string::npos) << script;
  EXPECT_EQ(script.find("attempt 1"), std::string::npos) << script;
  EXPECT_EQ(script.find("<script>"), std::string::npos) << script;
  const std::string data = gnuplot_data(*c);
  EXPECT_NE(data.find("\"p2 attempt 2: duplicate\""), std::string::npos) << data;
}

TEST(CheckReport, CampaignPageHasCountsAndEachFailuresTimeline) {
  const json summary = {{"profile", "default"}, {"variant", "skip-probe"}, {"first_seed", 1}, {"seeds_run", 3},
                        {"passed", 2}, {"failed", 1}, {"shard", "0/1"}, {"jobs", 2}, {"out_of_time", false},
                        {"campaign_digest", "abcd"}, {"seed_hashes", {"default 1 h", "default 2 h", "default 3 h"}},
                        {"metrics", {{"probes_run", 4}}},
                        {"failures", {{{"profile", "default"}, {"seed", 2}, {"property", "model-agreement"},
                                       {"detail", kHostile}, {"steps", 1}, {"replay", "qdt replay f.json"},
                                       {"rule", "model-agreement/duplicate-answered-queued"},
                                       {"explanation", "Consumers read it twice."}}}}};
  const std::string html = check_html(summary, {document(true)}, "qdt check --html x", "c0ffee", kNoGnuplot);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"text\"><code>model-agreement/duplicate-answered-queued</code> Consumers read it "
                      "twice.<br>&lt;script&gt;"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr class=\"hl\"><td>default</td><td>3</td><td>1</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"failure-0\">"), std::string::npos);
  EXPECT_NE(html.find("href=\"#failure-0\""), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"hl\"><td>1</td><td>push</td>"), std::string::npos);
  EXPECT_NE(html.find("<code>abcd</code>"), std::string::npos);
  EXPECT_NE(html.find("<h5>The model&#39;s answer</h5>"), std::string::npos);
}

TEST(CheckReport, FailuresComeBeforeTheCountsAndTheCoverageTable) {
  json summary = {{"profile", "default"}, {"variant", "skip-probe"}, {"first_seed", 1}, {"seeds_run", 1},
                  {"passed", 0}, {"failed", 1}, {"shard", "0/1"}, {"jobs", 1}, {"campaign_digest", "abcd"},
                  {"seed_hashes", {"default 1 h"}},
                  {"failures", {{{"profile", "default"}, {"seed", 1}, {"property", "model-agreement"},
                                 {"detail", "d"}, {"steps", 1}, {"replay", "qdt replay f.json"}}}}};
  summary["coverage_report"] = {{"points", 1}, {"reached", 0}, {"profiles", {{"default", 1}}},
                                {"by_point", {{{"name", "cache.declined"}, {"means", "m"}, {"seeds", 0}}}}};
  const std::string html = check_html(summary, {document(true)}, "qdt check", "", kNoGnuplot);
  const size_t failures = html.find("<h2 id=\"groups\">What failed</h2>");
  ASSERT_NE(failures, std::string::npos) << html;
  EXPECT_LT(html.find("<h2>What was run</h2>"), failures);
  EXPECT_LT(html.find("<section id=\"failure-0\">"), html.find("<h2>Per profile</h2>"));
  EXPECT_LT(failures, html.find("<h2 id=\"failures\">Every failing seed</h2>"));
  EXPECT_LT(failures, html.find("<h2 id=\"coverage\">"));
  EXPECT_LT(html.find("<details>"), html.find("cache.declined"));

  // A failure left unshrunk carries the command that shrinks it.
  summary["failures"].push_back({{"profile", "default"}, {"seed", 7}, {"property", "offsets"}, {"detail", "d"},
                                 {"check", "qdt check --profile default --seed 7 --seeds 1 --out reports/out/failures"}});
  const std::string unshrunk = check_html(summary, {document(true), json()}, "qdt check", "", kNoGnuplot);
  EXPECT_NE(unshrunk.find("<td>not shrunk</td><td class=\"text\">shrink it with <code>qdt check --profile default "
                          "--seed 7 --seeds 1 --out reports/out/failures</code></td>"),
            std::string::npos)
      << unshrunk;

  summary["failures"] = json::array();
  summary["failed"] = 0;
  const std::string passing = check_html(summary, {}, "qdt check", "", kNoGnuplot);
  EXPECT_LT(passing.find("No failure: every seed held every property."), passing.find("<h2>Per profile</h2>"));
}

}  // namespace
}  // namespace qdt::reports
