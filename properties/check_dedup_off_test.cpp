#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "dedup-off";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

TEST(DedupOff, WindowZeroQueuesEverythingWithoutAProbe) {
  HistoryBuilder b;
  b.configure("q", 0).push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a", "b"});
  b.configure("q", 3600).push("p3", "q", "p", {"a"});
  EXPECT_TRUE(nth<history::PushEvent>(b.history(), 2).probe_ran);
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
}

TEST(DedupOff, ProbeMaySkipWhenTheWholeSidecarIsPurged) {
  HistoryBuilder b;
  b.configure("q", 60).push("p1", "q", "p", {"a"}).advance_seconds(1000).purge("q", "p");
  b.push("p2", "q", "p", {"a"});
  EXPECT_FALSE(nth<history::PushEvent>(b.history(), 1).probe_ran);
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
}

TEST(DedupOff, ProbeOnWindowZeroFails) {
  HistoryBuilder b;
  b.configure("q", 0).push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b"});
  history::PushEvent& ev = nth<history::PushEvent>(b.history(), 1);
  ev.probe_ran = true;
  ev.rows_scanned = 1;
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::dedup_off_probe_ran)) << show(failures);
}

TEST(DedupOff, DuplicateOnWindowZeroFails) {
  HistoryBuilder b;
  b.configure("q", 0).push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a"});
  history::PushEvent& ev = nth<history::PushEvent>(b.history(), 1);
  ev.queued = false;
  ev.duplicates = {{0, 0}};
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::dedup_off_duplicate_answered)) << show(check(b.history()));
}

TEST(DedupOff, SkippedProbeWithAWindowFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b"});
  nth<history::PushEvent>(b.history(), 1).probe_ran = false;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::dedup_off_probe_skipped)) << show(check(b.history()));
}

TEST(DedupOff, WatermarkPastTheLastOffsetMaySkipTheProbe) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b"});
  history::PushEvent& ev = nth<history::PushEvent>(b.history(), 1);
  ev.probe_ran = false;
  ev.p_verified = 0;
  EXPECT_TRUE(check(b.history()).empty());
}

}  // namespace
}  // namespace qdt::properties
