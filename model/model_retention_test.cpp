// The model's retention decisions (docs/semantics.md §2.8): which segments a retention pass
// deletes and which sidecar rows one purge step removes. Each rule is tested
// on both sides of its boundary.
#include <gtest/gtest.h>

#include "model/model.h"

namespace qdt::model {
namespace {

constexpr int64_t kSecondMs = 1000;

Frame frame(const std::string& id, const std::string& txn) { return Frame{id, txn}; }

// Three one-frame segments created at 0 s, 10 s and 20 s (+ 1 000 000 ms).
Partition three_segments() {
  Partition p;
  p.push({frame("m0", "a")}, 1'000'000, 3600);
  p.push({frame("m1", "b"), frame("m2", "c")}, 1'010'000, 3600);
  p.push({frame("m3", "d")}, 1'020'000, 3600);
  return p;
}

TEST(ModelRetention, NothingIsDueWithBothRetentionsOff) {
  const Partition p = three_segments();
  EXPECT_TRUE(p.retention_due(1'000'000 + 365LL * 86400 * kSecondMs, QueueOptions{3600, 0, 0}).empty());
}

TEST(ModelRetention, RetentionDeletesStrictlyOlderSegments) {
  const Partition p = three_segments();
  const QueueOptions o{3600, 15, 0};
  // now - 15 s == 1 010 000: segment 1 (created exactly then) is not older.
  const auto due = p.retention_due(1'025'000, o);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].base_offset, 0);
  const auto later = p.retention_due(1'025'001, o);
  ASSERT_EQ(later.size(), 2u);
  EXPECT_EQ(later[1].base_offset, 1);
  EXPECT_EQ(later[1].end_offset, 2);
}

TEST(ModelRetention, DeletedSegmentsAreNotDueAgain) {
  Partition p = three_segments();
  p.delete_segment(0, 0);
  const auto due = p.retention_due(1'100'000, QueueOptions{3600, 1, 0});
  ASSERT_EQ(due.size(), 2u);
  EXPECT_EQ(due[0].base_offset, 1);
  EXPECT_FALSE(p.segments()[0].present);
}

TEST(ModelRetention, AcksCommitCumulativelyAndCompletedRetentionWaitsForEveryGroup) {
  Partition p = three_segments();  // a | b c | d
  const QueueOptions o{3600, 0, 5};
  EXPECT_TRUE(p.retention_due(1'100'000, o).empty());  // no group has acked
  p.record_ack("g1", "b");
  EXPECT_EQ(p.committed("g1"), 1);
  EXPECT_FALSE(p.completed(p.segments()[1]));  // offset 2 not yet committed
  p.record_ack("g1", "c");  // commits 2, and 0 and 1 with it
  EXPECT_EQ(p.committed("g1"), 2);
  ASSERT_EQ(p.retention_due(1'100'000, o).size(), 2u);
  p.record_ack("g1", "a");  // below the committed offset: nothing moves
  EXPECT_EQ(p.committed("g1"), 2);
  p.record_ack("g2", "a");  // a second group holds everything above offset 0
  EXPECT_EQ(p.committed("g2"), 0);
  const auto due = p.retention_due(1'100'000, o);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].base_offset, 0);
  EXPECT_TRUE(p.retention_due(1'004'000, o).empty());  // committed but not old enough
}

TEST(ModelRetention, AnAckThatResolvesNothingLeavesNoGroupBehind) {
  Partition p = three_segments();
  p.record_ack("g1", "zzz");
  EXPECT_EQ(p.committed("g1"), -1);
  p.record_ack("g2", "d");
  EXPECT_EQ(p.retention_due(1'100'000, QueueOptions{3600, 0, 5}).size(), 3u);
  p.purge_rows(0, 3);
  p.record_ack("g3", "d");  // no sidecar row holds d any more
  EXPECT_EQ(p.committed("g3"), -1);
  EXPECT_EQ(p.retention_due(1'100'000, QueueOptions{3600, 0, 5}).size(), 3u);
}

TEST(ModelPurge, FloorAndBatchAndOffsetOrder) {
  Partition p = three_segments();
  // Floor 900 s: at 1 920 000 + 1 ms only segment 0 is strictly older.
  EXPECT_TRUE(p.purge_due(1'900'000, 900, 10).empty());
  ASSERT_EQ(p.purge_due(1'900'001, 900, 10).size(), 1u);
  const auto all = p.purge_due(2'000'000, 900, 10);
  ASSERT_EQ(all.size(), 3u);
  const auto two = p.purge_due(2'000'000, 900, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].base_offset, 0);
  EXPECT_EQ(two[1].base_offset, 1);
  p.purge_rows(two[0].base_offset, two[0].end_offset);
  p.purge_rows(two[1].base_offset, two[1].end_offset);
  EXPECT_EQ(p.txns_start(), 3);
  const auto rest = p.purge_due(2'000'000, 900, 2);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].base_offset, 3);
  p.purge_rows(3, 3);
  EXPECT_EQ(p.txns_start(), 4);  // every row gone: one past the last offset
}

TEST(ModelPurge, SidecarOutlivesItsSegment) {
  Partition p = three_segments();
  p.delete_segment(0, 0);
  EXPECT_TRUE(p.segments()[0].sidecar_present);
  EXPECT_EQ(p.txns_start(), 0);
  EXPECT_EQ(p.purge_due(3'000'000, 900, 1).size(), 1u);
}

TEST(ModelPurge, EmptyPartitionStartsAtZero) {
  const Partition p;
  EXPECT_EQ(p.txns_start(), 0);
  EXPECT_TRUE(p.purge_due(10'000'000, 900, 5).empty());
}

}  // namespace
}  // namespace qdt::model
