#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "duplicate-id";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

// Window 0 stores "a" at offsets 0 and 1; with the window back on, p3 is a
// duplicate of offset 0, the smallest.
HistoryBuilder two_originals() {
  HistoryBuilder b;
  b.configure("q", 0).push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a"});
  b.configure("q", 3600).push("p3", "q", "p", {"a"});
  return b;
}

TEST(DuplicateId, OriginalIdAndZeroIdWhenDeletedPass) {
  HistoryBuilder b = two_originals();
  b.delete_segment("q", "p", 0).push("p4", "q", "p", {"a", "a"});
  history::History& h = b.history();
  EXPECT_EQ(request(h, "p3").responses[0].message_id, request(h, "p1").responses[0].message_id);
  EXPECT_EQ(request(h, "p4").responses[0].message_id, history::kZeroUuid);
  EXPECT_EQ(request(h, "p4").responses[1].message_id, history::kZeroUuid);
  EXPECT_TRUE(check_history(h).empty()) << show(check_history(h));
}

TEST(DuplicateId, SmallestOffsetSkipsOutOfWindowOnes) {
  HistoryBuilder b;
  b.configure("q", 0).push("p1", "q", "p", {"a"}).advance_seconds(2000).push("p2", "q", "p", {"a"});
  b.configure("q", 1000).push("p3", "q", "p", {"a"});
  EXPECT_EQ(nth_duplicate_push(b.history()).duplicates[0].second, 1);
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
}

TEST(DuplicateId, DuplicateOfANonSmallestOffsetFails) {
  HistoryBuilder b = two_originals();
  nth_duplicate_push(b.history()).duplicates[0].second = 1;
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p3", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::duplicate_id_not_smallest_offset)) << show(failures);
}

TEST(DuplicateId, ZeroIdWhileTheSegmentIsPresentFails) {
  HistoryBuilder b = two_originals();
  history::FetchEvent& fetch = nth<history::FetchEvent>(b.history());
  fetch.found = false;
  fetch.message_id = history::kZeroUuid;
  request(b.history(), "p3").responses[0].message_id = history::kZeroUuid;
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p3", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::duplicate_id_fetch_wrong_id)) << show(failures);
}

TEST(DuplicateId, OriginalIdAfterTheSegmentWasDeletedFails) {
  HistoryBuilder b = two_originals();
  b.delete_segment("q", "p", 0).push("p4", "q", "p", {"a"});
  history::FetchEvent& fetch = nth<history::FetchEvent>(b.history(), 1);
  fetch.found = true;
  fetch.message_id = request(b.history(), "p1").responses[0].message_id;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p4", "q/p"));
}

TEST(DuplicateId, FreshIdOnADuplicateFails) {
  HistoryBuilder b = two_originals();
  request(b.history(), "p3").responses[0].message_id = "m-fresh";
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p3", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::duplicate_id_answered_wrong_id)) << show(check(b.history()));
}

TEST(DuplicateId, FollowerOfAQueuedLeaderMustCarryTheLeadersId) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "a"});
  EXPECT_TRUE(check(b.history()).empty());
  request(b.history(), "p1").responses[1].message_id = "m-fresh";
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p1", "q/p"));
}

TEST(DuplicateId, FailedFetchLegitimatelyAnswersZero) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).fail(Txn::fetch).push("p2", "q", "p", {"a"});
  const history::History& h = b.history();
  EXPECT_TRUE(nth<history::FetchEvent>(b.history()).failed);
  EXPECT_EQ(h.requests[1].responses[0].message_id, history::kZeroUuid);
  EXPECT_TRUE(check_history(h).empty()) << show(check_history(h));
}

TEST(DuplicateId, FailedFetchThatClaimsTheOriginalFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).fail(Txn::fetch).push("p2", "q", "p", {"a"});
  history::FetchEvent& fetch = nth<history::FetchEvent>(b.history());
  fetch.found = true;
  fetch.message_id = request(b.history(), "p1").responses[0].message_id;
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
}

TEST(DuplicateId, OriginalIdAfterRetentionDeletedTheSegmentFails) {
  // The replay consumes RetentionEvent deletions: a fetch after it must read nothing.
  HistoryBuilder b;
  b.configure("q", 3600, 0, 10).push("p1", "q", "p", {"a"}).advance_seconds(11).retention("q");
  b.push("p2", "q", "p", {"a"});
  ASSERT_EQ(nth<history::RetentionEvent>(b.history()).deleted.size(), 1u);
  EXPECT_EQ(request(b.history(), "p2").responses[0].message_id, history::kZeroUuid);
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
  const std::string original = request(b.history(), "p1").responses[0].message_id;
  history::FetchEvent& fetch = nth<history::FetchEvent>(b.history());
  fetch.found = true;
  fetch.message_id = original;
  request(b.history(), "p2").responses[0].message_id = original;
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
}

TEST(DuplicateId, AFoundCommitLostBeforeTheFetchAnswersTheIdTheFetchRead) {
  // p1's frame is pushed again after its answer was lost and finds its own
  // commit; power fails under synchronous off before the broker's fetch,
  // which reads nothing: duplicate with the zero id, and no other id.
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"});
  history::History& h = b.history();
  history::PushEvent again = nth<history::PushEvent>(h);
  again.queued = false;
  again.base_offset = -1;
  again.duplicates = {{0, 0}};
  h.events.push_back(again);
  history::StorageCrash crash;
  crash.event_index = h.events.size();
  crash.synchronous = "off";
  crash.integrity = "ok";
  h.storage_crashes.push_back(crash);
  h.events.push_back(history::FetchEvent{.queue = "q", .partition = "p", .offset = 0, .found = false,
                                         .message_id = history::kZeroUuid});
  request(h, "p1").responses[0] = {"duplicate", history::kZeroUuid, "a", "q"};
  EXPECT_TRUE(check(h).empty()) << show(check(h));
  request(h, "p1").responses[0].message_id = "m-other";
  EXPECT_TRUE(has_failure(check(h), kName, "p1", "q/p")) << show(check(h));
}

}  // namespace
}  // namespace qdt::properties
