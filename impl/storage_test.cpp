#include "impl/storage.h"

#include <gtest/gtest.h>

namespace qdt::impl {
namespace {

Frame frame(const std::string& txn, uint64_t n) {
  Frame f;
  f.message_id = make_uuid_v7(1000 + static_cast<int64_t>(n), n, n + 1);
  f.transaction_id = txn;
  f.payload = "{}";
  f.hash = hash_transaction_id(txn);
  return f;
}

SegmentPush segment(std::vector<std::string> txns, const std::string& partition = "Default", int64_t p_verified = -1) {
  SegmentPush s;
  s.queue = "q";
  s.partition = partition;
  s.p_verified = p_verified;
  s.window_seconds_assumed = kDefaultWindowSeconds;
  uint64_t n = 0;
  for (const auto& t : txns) s.frames.push_back(frame(t, n++));
  return s;
}

TEST(Storage, FirstPushCreatesQueueAndPartitionWithDefaults) {
  Storage st;
  const PushResult r = st.push(segment({"a", "b"}), 5000);
  EXPECT_TRUE(r.queued);
  EXPECT_EQ(r.base_offset, 0);
  EXPECT_EQ(r.window_seconds, kDefaultWindowSeconds);
  EXPECT_FALSE(r.probe_ran);  // empty partition: nothing to probe
  EXPECT_EQ(st.partition_state("q", "Default").last_offset, 1);
  EXPECT_EQ(st.stored_messages("q", "Default"), 2);
  EXPECT_EQ(st.sidecar_rows(), 1);
}

TEST(Storage, DuplicateWritesNothingAndNamesSmallestOffset) {
  Storage st;
  st.configure("q", {});
  ASSERT_TRUE(st.push(segment({"a"}), 1000).queued);        // offset 0
  ASSERT_TRUE(st.push(segment({"x", "y"}), 1000).queued);   // 1, 2
  st.configure("q", {.dedup_window_seconds = 0});
  ASSERT_TRUE(st.push(segment({"a"}), 1000).queued);        // offset 3: same key again, window off
  st.configure("q", {});
  const int64_t changes = st.total_changes();
  const PushResult r = st.push(segment({"new", "a", "y"}), 2000);
  EXPECT_FALSE(r.queued);
  EXPECT_TRUE(r.probe_ran);
  ASSERT_EQ(r.duplicates.size(), 2u);
  EXPECT_EQ(r.duplicates[0], std::make_pair(uint32_t{1}, int64_t{0}));  // smallest of {0, 3}
  EXPECT_EQ(r.duplicates[1], std::make_pair(uint32_t{2}, int64_t{2}));
  EXPECT_EQ(st.total_changes(), changes);
  EXPECT_EQ(st.partition_state("q", "Default").last_offset, 3);
}

TEST(Storage, WindowBoundaryIsInclusive) {
  Storage st;
  st.configure("q", {.dedup_window_seconds = 60});
  ASSERT_TRUE(st.push(segment({"a"}), 10'000).queued);
  EXPECT_FALSE(st.push(segment({"a"}), 70'000).queued);  // created_at == now - window
  const PushResult later = st.push(segment({"a"}), 70'001);
  EXPECT_TRUE(later.queued);
  EXPECT_EQ(later.base_offset, 1);
}

TEST(Storage, WindowZeroSkipsProbeButWritesSidecar) {
  Storage st;
  st.configure("q", {.dedup_window_seconds = 0});
  ASSERT_TRUE(st.push(segment({"a"}), 1000).queued);
  const PushResult r = st.push(segment({"a"}), 1000);
  EXPECT_TRUE(r.queued);
  EXPECT_FALSE(r.probe_ran);
  EXPECT_EQ(r.rows_scanned, 0u);
  EXPECT_EQ(st.sidecar_rows(), 2);
  EXPECT_TRUE(st.ack("q", "Default", "a", "g", 2000).acked);
}

TEST(Storage, PartitionScope) {
  Storage st;
  ASSERT_TRUE(st.push(segment({"a"}, "p1"), 1000).queued);
  EXPECT_TRUE(st.push(segment({"a"}, "p2"), 1000).queued);
  SegmentPush other = segment({"a"}, "p1");
  other.queue = "q2";
  EXPECT_TRUE(st.push(other, 1000).queued);
}

TEST(Storage, WatermarkNarrowsTheProbe) {
  Storage st;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(st.push(segment({"k" + std::to_string(i)}), 1000).queued);
  const PushResult full = st.push(segment({"k3"}), 1000);
  EXPECT_FALSE(full.queued);
  EXPECT_EQ(full.rows_scanned, 10u);
  // A watermark of 5 vouches for offsets <= 5: only rows 6..9 are scanned.
  const PushResult narrow = st.push(segment({"zz"}, "Default", 5), 1000);
  EXPECT_TRUE(narrow.queued);
  EXPECT_EQ(narrow.rows_scanned, 4u);
  // A watermark computed with a smaller window than storage's is ignored.
  SegmentPush stale = segment({"zz3"}, "Default", 11);
  stale.window_seconds_assumed = 60;
  EXPECT_TRUE(st.push(stale, 1000).probe_ran);
  // A watermark at the end skips the probe entirely.
  const PushResult skipped = st.push(segment({"zz2"}, "Default", 12), 1000);
  EXPECT_TRUE(skipped.queued);
  EXPECT_FALSE(skipped.probe_ran);
}

TEST(Storage, CoveringSegmentAndDeletion) {
  Storage st;
  ASSERT_TRUE(st.push(segment({"a", "b", "c"}), 1000).queued);
  auto seg = st.covering_segment("q", "Default", 2);
  ASSERT_TRUE(seg);
  EXPECT_EQ(seg->base_offset, 0);
  EXPECT_EQ(frame_at(seg->frames, 2)->transaction_id, "c");
  ASSERT_TRUE(st.delete_segment("q", "Default", 1));
  EXPECT_FALSE(st.covering_segment("q", "Default", 2));
  EXPECT_EQ(st.stored_messages("q", "Default"), 0);
  EXPECT_FALSE(st.push(segment({"b"}), 1000).queued);  // the sidecar still knows "b"
  auto ack = st.ack("q", "Default", "b", "g", 1000);
  EXPECT_TRUE(ack.acked);
  EXPECT_FALSE(ack.message_id.has_value());
}

TEST(Storage, PurgeHonoursTheFloorInBoundedSteps) {
  Storage st(":memory:", 2);
  st.configure("q", {.dedup_window_seconds = 60});
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(st.push(segment({"k" + std::to_string(i)}), 1000 + i).queued);
  // 899 s later nothing is purged although the window (60 s) has long passed.
  EXPECT_TRUE(st.purge_step("q", "Default", 1000 + 899'000).rows.empty());
  const PurgeStep first = st.purge_step("q", "Default", 1000 + 900'003);
  EXPECT_EQ(first.floor_seconds, 900);
  EXPECT_EQ(first.rows.size(), 2u);
  EXPECT_TRUE(first.more);
  EXPECT_EQ(first.txns_start_after, 2);
  const PurgeStep second = st.purge_step("q", "Default", 1000 + 900'003);
  EXPECT_EQ(second.rows.size(), 1u);  // created_at 1003 is not < cutoff 1003
  EXPECT_FALSE(second.more);
  EXPECT_EQ(second.txns_start_after, 3);
  EXPECT_FALSE(st.ack("q", "Default", "k0", "g", 1000 + 900'003).acked);
  EXPECT_TRUE(st.ack("q", "Default", "k3", "g", 1000 + 900'003).acked);
}

TEST(Storage, RetentionDeletesOldAndFullyAckedSegments) {
  Storage st;
  st.configure("q", {.dedup_window_seconds = 60, .retention_seconds = 0, .completed_retention_seconds = 10});
  ASSERT_TRUE(st.push(segment({"a", "b"}), 1000).queued);
  ASSERT_TRUE(st.push(segment({"c"}), 1000).queued);
  ASSERT_TRUE(st.ack("q", "Default", "a", "g", 2000).acked);
  EXPECT_TRUE(st.delete_expired_segments("q", "Default", 20'000).empty());  // b is not acked
  ASSERT_TRUE(st.ack("q", "Default", "b", "g", 2000).acked);
  const auto deleted = st.delete_expired_segments("q", "Default", 20'000);
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(deleted[0].end_offset, 1);
  st.configure("q", {.dedup_window_seconds = 60, .retention_seconds = 5, .completed_retention_seconds = 0});
  EXPECT_EQ(st.delete_expired_segments("q", "Default", 20'000).size(), 1u);
  EXPECT_EQ(st.stored_messages("q", "Default"), 0);
}

TEST(Storage, ReadSkipsDeletedSegmentsAndHonoursLimit) {
  Storage st;
  ASSERT_TRUE(st.push(segment({"a", "b"}), 1000).queued);
  ASSERT_TRUE(st.push(segment({"c"}), 1000).queued);
  ASSERT_TRUE(st.push(segment({"d", "e"}), 1000).queued);
  ASSERT_TRUE(st.delete_segment("q", "Default", 2));
  const auto all = st.read("q", "Default", 0, 0);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[2].offset, 3);
  const auto some = st.read("q", "Default", 1, 2);
  ASSERT_EQ(some.size(), 2u);
  EXPECT_EQ(some[0].transaction_id, "b");
  EXPECT_EQ(some[1].transaction_id, "d");
}

TEST(Storage, FilePathWorks) {
  const std::string path = testing::TempDir() + "qdt_storage_test.sqlite";
  std::remove(path.c_str());
  {
    Storage st(path);
    ASSERT_TRUE(st.push(segment({"a"}), 1000).queued);
  }
  Storage reopened(path);
  EXPECT_FALSE(reopened.push(segment({"a"}), 2000).queued);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace qdt::impl

namespace qdt::impl {
namespace {

// Checked mode: the read-only re-probe ignores the watermark and reports
// originals the watermark claimed were absent.
TEST(Storage, CheckProbeSeesPastTheWatermark) {
  Storage st;
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(st.push(segment({"k" + std::to_string(i)}), 1000).queued);
  const int64_t changes = st.total_changes();
  Storage::ProbeCheck c = st.check_probe(segment({"new", "k1"}, "Default", 2), 1000);
  ASSERT_EQ(c.duplicates.size(), 1u);
  EXPECT_EQ(c.duplicates[0], std::make_pair(uint32_t{1}, int64_t{1}));
  EXPECT_EQ(c.frames_at_or_below_watermark, 1u);  // k1 at offset 1 <= watermark 2
  EXPECT_EQ(st.total_changes(), changes);          // read-only
  EXPECT_EQ(st.check_probe(segment({"k3"}, "Default", 2), 1000).frames_at_or_below_watermark, 0u);
  SegmentPush stale = segment({"k1"}, "Default", 2);
  stale.window_seconds_assumed = 60;  // push() would ignore this watermark
  EXPECT_EQ(st.check_probe(stale, 1000).frames_at_or_below_watermark, 0u);
}

}  // namespace
}  // namespace qdt::impl
