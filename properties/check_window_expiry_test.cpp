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
  EXPECT_TRUE(has_rule(failures, Rule::window_expiry_expired_answered_duplicate)) << show(failures);
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
  EXPECT_TRUE(has_rule(failures, Rule::window_expiry_stale_id)) << show(failures);
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

// Push event `n` again at the builder's clock, as a broker whose connection
// died with the answer pushes the same frames again.
history::PushEvent pushed_again(HistoryBuilder& b, size_t n) {
  history::PushEvent again = nth<history::PushEvent>(b.history(), n);
  again.now_ms = b.now_ms();
  return again;
}

TEST(WindowExpiry, AnIdStoredOnlyByACommitStorageLostIsNotStale) {
  // p1 stores "a"; power fails under synchronous off; p2 stores "b"; the
  // broker pushes p1's frame again and storage queues it anew with its own id.
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_seconds(3601).power_loss_off().advance_ms(5);
  b.push("p2", "q", "p", {"b"}).advance_ms(5);
  history::PushEvent again = pushed_again(b, 0);
  again.base_offset = 1;
  b.history().events.push_back(again);
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
  // Had storage kept the first commit, the frame would be stored twice under one id.
  history::History kept = b.history();
  kept.storage_crashes.clear();
  nth<history::PushEvent>(kept, 1).base_offset = 1;  // p2's "b"
  std::get<history::PushEvent>(kept.events.back()).base_offset = 2;
  const auto failures = check(kept);
  ASSERT_EQ(failures.size(), 1u) << show(failures);
  EXPECT_NE(failures[0].detail.find("already stored"), std::string::npos) << failures[0].detail;
}

TEST(WindowExpiry, AFrameWhoseCommitWasLostAnswersWhatItsPushAfterTheLossDecided) {
  // p2 repeats "a" after the window and is queued anew at offset 1, but the
  // answer is lost with the connection when power fails under synchronous
  // off; p3 stores "a" in the emptied storage, and p2's frame, pushed again,
  // is a duplicate of it.
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_seconds(3601).push("p2", "q", "p", {"a"});
  b.advance_ms(5).power_loss_off().advance_ms(5).push("p3", "q", "p", {"a"}).advance_ms(5);
  history::PushEvent again = pushed_again(b, 1);
  again.queued = false;
  again.base_offset = -1;
  again.duplicates = {{0, 0}};
  history::History& h = b.history();
  const std::string since = request(h, "p3").responses[0].message_id;
  history::FetchEvent fetch{.queue = "q", .partition = "p", .offset = 0, .found = true, .message_id = since,
                            .transaction_id = "a"};
  h.events.push_back(again);
  h.events.push_back(fetch);
  request(h, "p2").responses[0] = {"duplicate", since, "a", "q"};
  EXPECT_TRUE(check(h).empty()) << show(check(h));
  // With no loss, that answer is a false duplicate of a repeat after the window.
  history::History kept = h;
  kept.storage_crashes.clear();
  EXPECT_TRUE(has_failure(check(kept), kName, "p2", "q/p")) << show(check(kept));
  // And a loss the frame was never pushed again after does not excuse it.
  history::History not_again = h;
  not_again.events.resize(not_again.events.size() - 2);
  EXPECT_TRUE(has_failure(check(not_again), kName, "p2", "q/p")) << show(check(not_again));
}

}  // namespace
}  // namespace qdt::properties
