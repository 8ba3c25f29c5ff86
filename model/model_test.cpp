#include "model/model.h"

#include <gtest/gtest.h>

namespace qdt::model {
namespace {

using Duplicates = std::vector<std::pair<uint32_t, int64_t>>;

Frame frame(const std::string& id, const std::string& txn) { return Frame{id, txn}; }

constexpr int64_t kHourMs = 3600 * 1000;

TEST(ModelPush, FirstPushQueuesAtZeroAndStampsNow) {
  Partition p;
  const PushAnswer a = p.push({frame("m0", "a"), frame("m1", "b")}, 5000, 3600);
  EXPECT_TRUE(a.queued);
  EXPECT_TRUE(a.probe_runs);
  EXPECT_EQ(a.base_offset, 0);
  EXPECT_TRUE(a.duplicates.empty());
  ASSERT_EQ(p.last_offset(), 1);
  EXPECT_EQ(p.messages()[1].created_at_ms, 5000);
  EXPECT_EQ(p.messages()[1].transaction_id, "b");
  const PushAnswer b = p.push({frame("m2", "c")}, 6000, 3600);
  EXPECT_EQ(b.base_offset, 2);
}

TEST(ModelPush, RepeatInsideWindowIsDuplicateAndWritesNothing) {
  Partition p;
  p.push({frame("m0", "a")}, 1000, 3600);
  const PushAnswer a = p.push({frame("m1", "x"), frame("m2", "a")}, 2000, 3600);
  EXPECT_FALSE(a.queued);
  EXPECT_EQ(a.base_offset, -1);
  EXPECT_EQ(a.duplicates, (Duplicates{{1, 0}}));
  EXPECT_EQ(p.last_offset(), 0);  // "x" was not written either
  EXPECT_EQ(p.stored(), 1u);
}

TEST(ModelPush, WindowBoundaryIsInclusive) {
  const int64_t created = 10'000;
  {
    Partition p;
    p.push({frame("m0", "a")}, created, 3600);
    // now - window == created: still a duplicate.
    const PushAnswer a = p.push({frame("m1", "a")}, created + kHourMs, 3600);
    EXPECT_FALSE(a.queued);
    EXPECT_EQ(a.duplicates, (Duplicates{{0, 0}}));
  }
  {
    Partition p;
    p.push({frame("m0", "a")}, created, 3600);
    // One millisecond later the original is out of the window.
    const PushAnswer a = p.push({frame("m1", "a")}, created + kHourMs + 1, 3600);
    EXPECT_TRUE(a.queued);
    EXPECT_EQ(a.base_offset, 1);
    EXPECT_EQ(p.messages()[1].message_id, "m1");
  }
}

TEST(ModelPush, DuplicatePointsAtSmallestInWindowOffset) {
  Partition p;
  p.push({frame("m0", "a")}, 0, 0);     // window 0: stored without a probe
  p.push({frame("m1", "a")}, 1000, 0);  // stored again
  p.push({frame("m2", "b")}, 2000, 0);
  const PushAnswer a = p.push({frame("m3", "b"), frame("m4", "a")}, 3000, 3600);
  EXPECT_FALSE(a.queued);
  EXPECT_EQ(a.duplicates, (Duplicates{{0, 2}, {1, 0}}));
}

TEST(ModelPush, SmallestOffsetSkipsExpiredAndPurgedOnes) {
  Partition p;
  p.push({frame("m0", "a")}, 0, 0);
  p.push({frame("m1", "a")}, 2 * kHourMs, 0);
  p.push({frame("m2", "a")}, 3 * kHourMs, 0);
  // At 3h with a one-hour window offset 0 is out, offset 1 is exactly on the edge.
  EXPECT_EQ(p.push({frame("m3", "a")}, 3 * kHourMs, 3600).duplicates, (Duplicates{{0, 1}}));
  // Once offset 1's sidecar row is gone, offset 2 is the smallest.
  EXPECT_EQ(p.purge_rows(1, 1), 1u);
  EXPECT_EQ(p.push({frame("m3", "a")}, 3 * kHourMs, 3600).duplicates, (Duplicates{{0, 2}}));
}

TEST(ModelPush, ProbeAnswersLikePushButWritesNothing) {
  Partition p;
  p.push({frame("m0", "a")}, 0, 3600);
  const PushAnswer fresh = p.probe({frame("m1", "b")}, 0, 3600);
  EXPECT_TRUE(fresh.queued);
  EXPECT_EQ(fresh.base_offset, 1);
  const PushAnswer repeat = p.probe({frame("m1", "b"), frame("m2", "a")}, 0, 3600);
  EXPECT_FALSE(repeat.queued);
  EXPECT_EQ(repeat.duplicates, (Duplicates{{1, 0}}));
  EXPECT_EQ(p.last_offset(), 0);
}

TEST(ModelPush, WindowZeroNeverProbes) {
  Partition p;
  p.push({frame("m0", "a")}, 1000, 3600);
  const PushAnswer a = p.push({frame("m1", "a")}, 1000, 0);
  EXPECT_TRUE(a.queued);
  EXPECT_FALSE(a.probe_runs);
  EXPECT_EQ(a.base_offset, 1);
  EXPECT_EQ(p.messages()[1].created_at_ms, 1000);
  EXPECT_TRUE(p.messages()[1].sidecar_present);  // acks still need it
}

TEST(ModelPush, PurgedOriginalIsNoLongerADuplicate) {
  Partition p;
  p.push({frame("m0", "a")}, 0, 3600);
  EXPECT_EQ(p.purge_rows(0, 0), 1u);
  EXPECT_TRUE(p.push({frame("m1", "a")}, 1000, 3600).queued);
}

TEST(ModelPartitionScope, SameKeyInTwoPartitionsAndQueuesIsQueuedTwice) {
  Model m;
  EXPECT_TRUE(m.partition("q", "p1").push({frame("m0", "a")}, 0, 3600).queued);
  EXPECT_TRUE(m.partition("q", "p2").push({frame("m1", "a")}, 0, 3600).queued);
  EXPECT_TRUE(m.partition("r", "p1").push({frame("m2", "a")}, 0, 3600).queued);
  EXPECT_FALSE(m.partition("q", "p1").push({frame("m3", "a")}, 0, 3600).queued);
  EXPECT_EQ(m.partition("q", "p2").last_offset(), 0);
  EXPECT_EQ(m.find("q", "p3"), nullptr);
  ASSERT_NE(m.find("r", "p1"), nullptr);
  EXPECT_EQ(m.find("r", "p1")->resolve_id(0), "m2");
}

TEST(ModelPurge, FloorIsStrict) {
  Partition p;
  p.push({frame("m0", "a")}, 0, 3600);
  p.push({frame("m1", "b")}, 1000, 3600);
  // Rows strictly older than now - floor go: created_at 0 < 1000, 1000 is not < 1000.
  EXPECT_EQ(p.purge(1000 + 900'000, 900), 1u);
  EXPECT_FALSE(p.messages()[0].sidecar_present);
  EXPECT_TRUE(p.messages()[1].sidecar_present);
  EXPECT_EQ(p.purge(1000 + 900'000, 900), 0u);  // newly purged only
  EXPECT_EQ(p.purge(1001 + 900'000, 900), 1u);
  EXPECT_EQ(p.stored(), 2u);  // segments are untouched
}

TEST(ModelFloor, SidecarFloorIsAtLeast900Seconds) {
  Model m;
  EXPECT_EQ(m.options("never").window_seconds, 3600);
  EXPECT_EQ(m.options("never").retention_seconds, 0);
  EXPECT_EQ(m.sidecar_floor_seconds("never"), 3600);
  m.configure("off", QueueOptions{0, 0, 0});
  EXPECT_EQ(m.sidecar_floor_seconds("off"), 900);
  m.configure("done", QueueOptions{60, 0, 7200});
  EXPECT_EQ(m.sidecar_floor_seconds("done"), 7200);
  m.configure("wide", QueueOptions{86400, 10, 20});
  EXPECT_EQ(m.sidecar_floor_seconds("wide"), 86400);
}

TEST(ModelAck, ResolvesSmallestOffsetThroughSidecar) {
  Partition p;
  p.push({frame("m0", "x"), frame("m1", "a")}, 0, 0);
  p.push({frame("m2", "a")}, 10 * kHourMs, 0);
  AckAnswer a = p.ack("a");
  EXPECT_TRUE(a.acked);
  EXPECT_EQ(a.offset, 1);
  EXPECT_EQ(a.message_id, "m1");
  EXPECT_FALSE(p.ack("never").acked);
}

TEST(ModelAck, AfterPurgeIsUnresolvableOrFallsToNextRow) {
  Partition p;
  p.push({frame("m0", "a")}, 0, 3600);
  p.push({frame("m1", "b")}, 1000, 3600);
  p.push({frame("m2", "a")}, 2 * kHourMs, 3600);
  EXPECT_EQ(p.purge(2 * kHourMs, 3600), 2u);
  EXPECT_FALSE(p.ack("b").acked);
  const AckAnswer a = p.ack("a");
  EXPECT_TRUE(a.acked);
  EXPECT_EQ(a.offset, 2);
}

TEST(ModelAck, DeletedSegmentAnswersZeroId) {
  Partition p;
  p.push({frame("m0", "a"), frame("m1", "b")}, 0, 3600);
  p.delete_segment(0, 1);
  const AckAnswer a = p.ack("b");
  EXPECT_TRUE(a.acked);
  EXPECT_EQ(a.offset, 1);
  EXPECT_EQ(a.message_id, kZeroId);
}

TEST(ModelResolve, DeletedSegmentAndOutOfRangeAnswerZeroId) {
  Partition p;
  p.push({frame("m0", "a"), frame("m1", "b")}, 0, 3600);
  p.push({frame("m2", "c")}, 0, 3600);
  EXPECT_EQ(p.resolve_id(2), "m2");
  p.delete_segment(0, 1);
  EXPECT_EQ(p.resolve_id(0), kZeroId);
  EXPECT_EQ(p.resolve_id(1), kZeroId);
  EXPECT_EQ(p.resolve_id(2), "m2");
  EXPECT_EQ(p.resolve_id(3), kZeroId);
  EXPECT_EQ(p.resolve_id(-1), kZeroId);
  EXPECT_EQ(p.stored(), 1u);
  // The sidecar outlives the segment: a repeat is still a duplicate, of a zero id.
  const PushAnswer a = p.push({frame("m3", "b")}, 1, 3600);
  EXPECT_EQ(a.duplicates, (Duplicates{{0, 1}}));
  EXPECT_EQ(p.resolve_id(a.duplicates[0].second), kZeroId);
}

TEST(ModelRead, SkipsDeletedSegmentsAndHonoursLimit) {
  Partition p;
  p.push({frame("m0", "a"), frame("m1", "b")}, 0, 0);
  p.push({frame("m2", "c"), frame("m3", "d")}, 0, 0);
  p.push({frame("m4", "e")}, 0, 0);
  p.delete_segment(2, 3);
  auto all = p.read(0, 0);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2].offset, 4);
  auto some = p.read(1, 2);
  ASSERT_EQ(some.size(), 2u);
  EXPECT_EQ(some[0].message_id, "m1");
  EXPECT_EQ(some[1].message_id, "m4");
  EXPECT_TRUE(p.read(5, -1).empty());
}

TEST(ModelRequestLeaders, FirstItemOfEachKeyLeads) {
  const std::vector<ItemKey> items = {
      {"q", "p", "a"}, {"q", "p", "b"}, {"q", "p", "a"}, {"q", "p2", "a"}, {"r", "p", "a"}, {"q", "p", "b"},
      {"q", "p", "a"},
  };
  EXPECT_EQ(request_leaders(items), (std::vector<size_t>{0, 1, 0, 3, 4, 1, 0}));
  EXPECT_TRUE(request_leaders({}).empty());
}

}  // namespace
}  // namespace qdt::model
