#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "cache-transparency";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

// A flush whose watermark agreed with the read-only re-probe passes.
TEST(CacheTransparency, AgreeingCheckedFlushesPass) {
  HistoryBuilder b;
  b.configure("q", 3600).push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b"}).push("p3", "q", "p", {"a"});
  history::PushEvent& queued = nth<history::PushEvent>(b.history(), 1);
  queued.p_verified = 0;
  queued.checked = true;  // re-probe found nothing either
  history::PushEvent& dup = nth<history::PushEvent>(b.history(), 2);
  dup.checked = true;
  dup.checked_duplicates = dup.duplicates;
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
}

// The watermark hid a duplicate: storage queued what the full probe calls a duplicate.
TEST(CacheTransparency, WatermarkThatHidesADuplicateFails) {
  HistoryBuilder b;
  b.configure("q", 3600).push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b"});
  history::PushEvent& ev = nth<history::PushEvent>(b.history(), 1);
  ev.p_verified = 0;
  ev.checked = true;
  ev.checked_duplicates = {{0, 0}};
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::cache_transparency_watermark_changed_answer)) << show(failures);
}

// A duplicate answered with a different original than the full probe finds.
TEST(CacheTransparency, DifferentOriginalFails) {
  HistoryBuilder b;
  b.configure("q", 3600).push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a"});
  history::PushEvent& ev = nth<history::PushEvent>(b.history(), 1);
  ev.checked = true;
  ev.checked_duplicates = {{0, 7}};
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p"));
}

// An in-window original at or below the watermark: the cache vouched for too much.
TEST(CacheTransparency, OriginalBelowTheWatermarkFails) {
  HistoryBuilder b;
  b.configure("q", 3600).push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a"});
  history::PushEvent& ev = nth<history::PushEvent>(b.history(), 1);
  ev.checked = true;
  ev.checked_duplicates = ev.duplicates;
  ev.checked_frames_at_or_below_watermark = 1;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::cache_transparency_watermark_hid_duplicate));
}

}  // namespace
}  // namespace qdt::properties
