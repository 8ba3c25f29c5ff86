#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "window-expiry";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

// p1 stores "a"; p2 repeats it just after the window closed.
HistoryBuilder repeat_after_the_window() {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_ms(3600 * 1000 + 1).push("p2", "q", "p", {"b", "a"});
  return b;
}

TEST(WindowExpiry, RepeatsAfterTheWindowAreQueuedWithFreshIds) {
  HistoryBuilder b = repeat_after_the_window();
  b.configure("r", 0).push("p3", "r", "p", {"a"}).push("p4", "r", "p", {"a"});                 // window 0
  b.configure("s", 60).push("p5", "s", "p", {"a"}).advance_seconds(1000).purge("s", "p");
  b.configure("s", 3600).push("p6", "s", "p", {"a"});                                          // purged
  b.push("p7", "q", "p", {"a"}).lose_response().advance_ms(3600 * 1000 + 1).retry("p7");       // a late retry
  history::History& h = b.history();
  EXPECT_EQ(request(h, "p2").responses[1].status, "queued");
  EXPECT_NE(request(h, "p2").responses[1].message_id, request(h, "p1").responses[0].message_id);
  EXPECT_EQ(request(h, "p6").responses[0].status, "queued");
  EXPECT_TRUE(check_history(h).empty()) << show(check_history(h));
}

TEST(WindowExpiry, RepeatsInsideTheWindowAreNotConstrained) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_ms(3600 * 1000).push("p2", "q", "p", {"a"});  // the edge is inclusive
  ASSERT_EQ(request(b.history(), "p2").responses[0].status, "duplicate");
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
}

TEST(WindowExpiry, RepeatAfterTheWindowListedAsDuplicateFails) {
  HistoryBuilder b = repeat_after_the_window();
  history::PushEvent& ev = nth<history::PushEvent>(b.history(), 1);
  ASSERT_TRUE(ev.queued);
  ev.queued = false;
  ev.base_offset = -1;
  ev.duplicates = {{1, 0}};
  const auto failures = check(b.history());
  ASSERT_EQ(failures.size(), 1u) << show(failures);
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p"));
  EXPECT_NE(failures[0].detail.find("outside the 3600 s window"), std::string::npos) << failures[0].detail;
}

TEST(WindowExpiry, RepeatAfterThePurgeListedAsDuplicateFails) {
  HistoryBuilder b;
  b.configure("q", 60).push("p1", "q", "p", {"a"}).advance_seconds(1000).purge("q", "p");
  b.configure("q", 3600).push("p2", "q", "p", {"a"});
  history::PushEvent& ev = nth<history::PushEvent>(b.history(), 1);
  ev.queued = false;
  ev.duplicates = {{0, 0}};
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p")) << show(check(b.history()));
}

TEST(WindowExpiry, RepeatAfterTheWindowAnsweringTheOldIdFails) {
  HistoryBuilder b = repeat_after_the_window();
  history::History& h = b.history();
  request(h, "p2").responses[1].message_id = request(h, "p1").responses[0].message_id;
  const auto failures = check(h);
  ASSERT_EQ(failures.size(), 1u) << show(failures);
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p"));
  EXPECT_NE(failures[0].detail.find("already stored"), std::string::npos) << failures[0].detail;
}

TEST(WindowExpiry, RepeatAfterTheWindowAnsweringAMarkerFails) {
  HistoryBuilder b = repeat_after_the_window();
  request(b.history(), "p2").responses[1].status = "duplicate";  // its own fresh id, but marked
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p"));
  HistoryBuilder zero = repeat_after_the_window();
  request(zero.history(), "p2").responses[1].message_id = history::kZeroUuid;
  EXPECT_TRUE(has_failure(check(zero.history()), kName, "p2", "q/p"));
}

TEST(WindowExpiry, WindowZeroRepeatAnsweringTheOldIdFails) {
  HistoryBuilder b;
  b.configure("r", 0).push("p1", "r", "p", {"a"}).push("p2", "r", "p", {"a"});
  history::History& h = b.history();
  request(h, "p2").responses[0].message_id = request(h, "p1").responses[0].message_id;
  EXPECT_TRUE(has_failure(check(h), kName, "p2", "r/p")) << show(check(h));
}

TEST(WindowExpiry, AnUnansweredRetryStillCounts) {
  // The broker's answer is checked even when the producer never received it.
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_ms(3600 * 1000 + 1).retry("p1").lose_response();
  history::History& h = b.history();
  h.requests[1].responses[0].message_id = h.requests[0].responses[0].message_id;
  EXPECT_TRUE(has_failure(check(h), kName, "p1", "q/p")) << show(check(h));
}

}  // namespace
}  // namespace qdt::properties
