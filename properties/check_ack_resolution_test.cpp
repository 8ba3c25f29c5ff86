#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "ack-resolution";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

// "a" stored twice (window 0) in q/p, then the older copy purged; "b" purged.
HistoryBuilder acks() {
  HistoryBuilder b;
  b.configure("q", 0).push("p1", "q", "p", {"a", "b"});
  b.ack("a1", "q", "p", "a").ack("a2", "q", "p", "never").ack("a3", "q", "p2", "a");
  b.advance_seconds(1000).push("p2", "q", "p", {"a"}).ack("a4", "q", "p", "a");
  b.purge("q", "p").ack("a5", "q", "p", "a").ack("a6", "q", "p", "b");
  b.delete_segment("q", "p", 2).ack("a7", "q", "p", "a");
  return b;
}

TEST(AckResolution, ResolvesThroughTheSidecarOnly) {
  HistoryBuilder b = acks();
  history::History& h = b.history();
  EXPECT_EQ(nth<history::AckEvent>(h, 0).offset, 0);
  EXPECT_FALSE(nth<history::AckEvent>(h, 1).acked);
  EXPECT_FALSE(nth<history::AckEvent>(h, 2).acked);
  EXPECT_EQ(nth<history::AckEvent>(h, 3).offset, 0);
  EXPECT_EQ(nth<history::AckEvent>(h, 4).offset, 2);
  EXPECT_FALSE(nth<history::AckEvent>(h, 5).acked);
  EXPECT_EQ(nth<history::AckEvent>(h, 6).message_id, history::kZeroUuid);
  EXPECT_TRUE(check_history(h).empty()) << show(check_history(h));
}

TEST(AckResolution, AnAnswerStorageCouldNotReadIsAFindingNeverASkip) {
  HistoryBuilder b = acks();
  history::AckEvent& ack = nth<history::AckEvent>(b.history(), 0);
  ack.acked = false;
  ack.offset = -1;
  ack.answer_problem = "an error (invalid or expired lease) where the contract says a producer's ack resolves";
  const auto failures = check(b.history());
  EXPECT_TRUE(detail_has(failures, "invalid or expired lease")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::ack_resolution_unreadable_answer)) << show(failures);
}

TEST(AckResolution, AckResolvedAfterThePurgeFails) {
  HistoryBuilder b = acks();
  history::AckEvent& ack = nth<history::AckEvent>(b.history(), 5);
  ack.acked = true;
  ack.offset = 1;
  ack.message_id = request(b.history(), "p1").responses[1].message_id;
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "a6", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::ack_resolution_acked_without_row)) << show(failures);
}

TEST(AckResolution, AckThroughAPurgedRowInsteadOfTheLiveOneFails) {
  HistoryBuilder b = acks();
  history::AckEvent& ack = nth<history::AckEvent>(b.history(), 4);
  ack.offset = 0;
  ack.message_id = request(b.history(), "p1").responses[0].message_id;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "a5", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::ack_resolution_wrong_offset)) << show(check(b.history()));
}

TEST(AckResolution, UnresolvableWhileARowHoldsTheKeyFails) {
  HistoryBuilder b = acks();
  history::AckEvent& ack = nth<history::AckEvent>(b.history(), 0);
  ack.acked = false;
  ack.offset = -1;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "a1", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::ack_resolution_unresolvable_with_row)) << show(check(b.history()));
}

TEST(AckResolution, AckOfAKeyOnlyAnotherPartitionHoldsFails) {
  HistoryBuilder b = acks();
  history::AckEvent& ack = nth<history::AckEvent>(b.history(), 2);
  ack.acked = true;
  ack.offset = 0;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "a3", "q/p2"));
}

TEST(AckResolution, AckWithTheOriginalIdAfterTheSegmentWasDeletedFails) {
  HistoryBuilder b = acks();
  nth<history::AckEvent>(b.history(), 6).message_id = request(b.history(), "p2").responses[0].message_id;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "a7", "q/p"));
}

}  // namespace
}  // namespace qdt::properties
