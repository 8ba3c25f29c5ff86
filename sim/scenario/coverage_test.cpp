#include "sim/scenario/coverage.h"

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "sim/scenario/history_reach.h"
#include "sim/scenario/reach_points.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

TEST(ReachPoints, NamesAreUniqueAndFindable) {
  std::set<std::string_view> seen;
  for (size_t i = 0; i < reach_points().size(); ++i) {
    const ReachPoint& p = reach_points()[i];
    EXPECT_TRUE(seen.insert(p.name).second) << p.name;
    EXPECT_EQ(reach_index(p.name), i);
    EXPECT_FALSE(p.means.empty()) << p.name;
  }
  EXPECT_GE(reach_points().size(), 40u);
  EXPECT_FALSE(reach_index("cache.no_such_point"));
}

TEST(RunReach, RecordsMarksInCatalogueOrderAndRestoresTheObserver) {
  QDT_REACHED("cache.vouched");  // no observer: nothing happens
  {
    RunReach outer;
    QDT_REACHED("cache.vouched");
    {
      RunReach inner;
      QDT_REACHED("window.shrunk");
      QDT_REACHED("cache.full_hydration");
      QDT_REACHED("window.shrunk");
      EXPECT_EQ(inner.names(), (std::vector<std::string>{"cache.full_hydration", "window.shrunk"}));
    }
    QDT_REACHED("power.torn_page_kept");  // back to the outer observer
    EXPECT_EQ(outer.names(), (std::vector<std::string>{"cache.vouched", "power.torn_page_kept"}));
  }
}

TEST(RunReachDeathTest, AMarkOutsideTheCatalogueAborts) {
  EXPECT_DEATH(
      {
        RunReach reach;
        QDT_REACHED("cache.typo_of_a_point");
      },
      "not in sim/scenario/reach_points.cpp");
}

TEST(Coverage, SeedsAddUpPerProfileAndMergeAcrossParts) {
  json a = json::object(), b = json::object();
  add_run_coverage(a, "default", json::array({"cache.vouched", "window.shrunk"}));
  add_run_coverage(a, "default", json::array({"cache.vouched"}));
  add_run_coverage(b, "default", json::array());
  add_run_coverage(b, "retention", json::array({"purge.purged_rows"}));
  json merged = json::object();
  merge_coverage(merged, a);
  merge_coverage(merged, b);
  EXPECT_EQ(merged["default"]["seeds"], 3);
  EXPECT_EQ(merged["default"]["points"]["cache.vouched"], 2);
  EXPECT_EQ(merged["retention"]["points"]["purge.purged_rows"], 1);
  EXPECT_FALSE(coverage_fault(merged));

  const json report = coverage_report(merged);
  EXPECT_EQ(report["points"], reach_points().size() - report["cannot_happen"].size());
  EXPECT_EQ(report["reached"], 3);
  EXPECT_EQ(report["profiles"]["default"], 3);
  EXPECT_EQ(report["never_reached"].size(), report["points"].get<size_t>() - 3);
  const std::vector<std::string> missing =
      missing_points(report, {"cache.vouched", "cache.declined", "purge.purged_rows", "window.widened"});
  EXPECT_EQ(missing, (std::vector<std::string>{"cache.declined", "window.widened"}));
}

// A point the campaign's engine or cache cannot reach is named with why,
// and is neither a point to reach nor a required point missed.
TEST(Coverage, PointsThatCannotHappenAreSetApartWithWhy) {
  json coverage = json::object();
  add_run_coverage(coverage, "default", json::array({"cache.vouched"}));
  const json sqlite = coverage_report(coverage, {false, false});
  const json postgres = coverage_report(coverage, {true, false});
  const json foreign = coverage_report(coverage, {false, true});
  const auto names = [](const json& report) {
    std::set<std::string> out;
    for (const json& p : report["cannot_happen"]) out.insert(p["name"].get<std::string>());
    return out;
  };
  EXPECT_TRUE(names(sqlite).count("cache.foreign_vouched"));
  EXPECT_FALSE(names(sqlite).count("power.torn_page_kept"));
  EXPECT_TRUE(names(sqlite).count("broker.bundle_pushed"));
  EXPECT_FALSE(names(postgres).count("broker.bundle_pushed"));
  EXPECT_TRUE(names(postgres).count("power.torn_page_kept"));
  EXPECT_TRUE(names(postgres).count("fault.push_failed_at_statement_2"));
  EXPECT_FALSE(names(postgres).count("fault.push_failed_at_statement_1"));
  EXPECT_FALSE(names(postgres).count("storage.probe_skipped_by_watermark"));
  EXPECT_TRUE(names(postgres).count("broker.repush_found_its_own_commit"));
  EXPECT_FALSE(names(sqlite).count("broker.repush_found_its_own_commit"));
  EXPECT_TRUE(names(foreign).count("cache.full_hydration"));
  EXPECT_TRUE(names(foreign).count("volume.cache_held_thousand_hashes"));
  EXPECT_TRUE(names(sqlite).count("volume.foreign_asked_thousand_hashes"));
  EXPECT_FALSE(names(foreign).count("volume.foreign_asked_thousand_hashes"));
  EXPECT_FALSE(names(foreign).count("cache.foreign_vouched"));
  // A point reached anyway is counted as reached, never hidden.
  EXPECT_FALSE(names(foreign).count("cache.vouched"));
  EXPECT_EQ(foreign["reached"], 1);
  EXPECT_TRUE(missing_points(postgres, {"power.torn_page_kept"}).empty());
  EXPECT_EQ(missing_points(sqlite, {"power.torn_page_kept"}), std::vector<std::string>{"power.torn_page_kept"});
}

TEST(Coverage, AMergedSummaryWithBrokenCoverageIsRejectedWithItsPath) {
  EXPECT_TRUE(coverage_fault(json::array()));
  const json unknown = {{"default", {{"seeds", 2}, {"points", {{"cache.nope", 1}}}}}};
  EXPECT_EQ(coverage_fault(unknown)->first, "/default/points/cache.nope");
  const json too_many = {{"default", {{"seeds", 2}, {"points", {{"cache.vouched", 3}}}}}};
  EXPECT_EQ(coverage_fault(too_many)->first, "/default/points/cache.vouched");
  const json negative = {{"default", {{"seeds", -1}, {"points", json::object()}}}};
  EXPECT_EQ(coverage_fault(negative)->first, "/default/seeds");
  const json no_points = {{"a/b", {{"seeds", 1}}}};
  EXPECT_EQ(coverage_fault(no_points)->first, "/a~1b/points");
}

TEST(Coverage, RequiredListParsesCommentsAndRejectsUnknownNames) {
  std::string error;
  const auto names = parse_required_points("# comment\n cache.vouched  # why\n\nwindow.shrunk\ncache.vouched\n", error);
  ASSERT_TRUE(names) << error;
  EXPECT_EQ(*names, (std::vector<std::string>{"cache.vouched", "window.shrunk"}));
  EXPECT_FALSE(parse_required_points("cache.vouched\ncache.vouchd\n", error));
  EXPECT_EQ(error, "line 2: cache.vouchd is not a reachability point (sim/scenario/reach_points.cpp)");
  // The checked-in list is sound and asks for at least 40 points.
  const auto shipped = parse_required_points(required_points_text(), error);
  ASSERT_TRUE(shipped) << error;
  EXPECT_GE(shipped->size(), 40u);
}

history::PushEvent queued(int64_t now_ms, int64_t base, const std::string& txn) {
  history::PushEvent p;
  p.queue = "q";
  p.partition = "p";
  p.frames = {{"m-" + txn + std::to_string(now_ms), txn, 1}};
  p.now_ms = now_ms;
  p.window_seconds = 10;
  p.queued = true;
  p.base_offset = base;
  return p;
}

std::vector<std::string> history_points(const history::History& h) {
  RunReach reach;
  mark_history_points(h);
  return reach.names();
}

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(HistoryReach, WindowEdgesToTheMillisecond) {
  for (const int64_t age_ms : {9'999, 10'000, 10'001, 10'002}) {
    history::History h;
    h.events.emplace_back(queued(1'000, 0, "a"));
    history::PushEvent repeat = queued(1'000 + age_ms, 1, "a");
    if (age_ms <= 10'000) {  // inside the window (created_at >= now - window): a duplicate
      repeat.queued = false;
      repeat.base_offset = -1;
      repeat.duplicates = {{0, 0}};
    }
    h.events.emplace_back(repeat);
    const std::vector<std::string> names = history_points(h);
    EXPECT_EQ(has(names, "probe.original_1ms_inside_window_edge"), age_ms == 9'999) << age_ms;
    EXPECT_EQ(has(names, "probe.original_exactly_at_window_edge"), age_ms == 10'000) << age_ms;
    EXPECT_EQ(has(names, "probe.repeat_1ms_past_window_edge"), age_ms == 10'001) << age_ms;
  }
}

TEST(HistoryReach, RetryRacingItsFirstAttemptAndCrashesAroundTheCommit) {
  history::History h;
  h.recorded_request_times = true;
  history::RequestRecord first;
  first.request = 1;
  first.push_id = 7;
  first.received_at_ms = 10;
  first.answered_at_ms = 50;
  history::RequestRecord retry = first;
  retry.request = 2;
  retry.attempt = 1;
  retry.received_at_ms = 40;  // before the first attempt was answered
  history::RequestRecord crashed;
  crashed.request = 3;
  crashed.push_id = 8;
  crashed.lost_in_crash = true;
  h.requests = {first, retry, crashed};
  std::vector<std::string> names = history_points(h);
  EXPECT_TRUE(has(names, "retry.delivered_while_its_first_attempt_in_flight"));
  EXPECT_TRUE(has(names, "crash.broker_lost_request_before_commit"));
  EXPECT_FALSE(has(names, "crash.broker_lost_request_after_commit"));

  h.requests[1].received_at_ms = 60;  // after: no race
  history::PushEvent committed = queued(20, 0, "a");
  committed.frames[0].origin_request = 3;  // the crashed request's frame committed
  h.events.emplace_back(committed);
  names = history_points(h);
  EXPECT_FALSE(has(names, "retry.delivered_while_its_first_attempt_in_flight"));
  EXPECT_TRUE(has(names, "crash.broker_lost_request_after_commit"));
}

}  // namespace
}  // namespace qdt::sim
