#include "impl/storage/sqlite/storage.h"

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

// Storage reads its clock itself (under the lock); tests set it before each call.
ManualClock& test_clock() {
  static ManualClock clock;
  return clock;
}

PushResult push_at(Storage& st, const SegmentPush& s, int64_t now_ms) {
  test_clock().set(now_ms);
  return st.push(s);
}

AckResult ack_at(Storage& st, const std::string& q, const std::string& p, const std::string& txn,
                 const std::string& group, int64_t now_ms) {
  test_clock().set(now_ms);
  return st.ack(q, p, txn, group);
}

PurgeStep purge_at(Storage& st, const std::string& q, const std::string& p, int64_t now_ms) {
  test_clock().set(now_ms);
  return st.purge_step(q, p);
}

std::vector<SegmentSpan> retention_at(Storage& st, const std::string& q, const std::string& p, int64_t now_ms) {
  test_clock().set(now_ms);
  return st.delete_expired_segments(q, p).deleted;
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
  Storage st{test_clock()};
  const PushResult r = push_at(st, segment({"a", "b"}), 5000);
  EXPECT_TRUE(r.queued);
  EXPECT_EQ(r.base_offset, 0);
  EXPECT_EQ(r.window_seconds, kDefaultWindowSeconds);
  EXPECT_FALSE(r.probe_ran);  // empty partition: nothing to probe
  EXPECT_EQ(st.partition_state("q", "Default").last_offset, 1);
  EXPECT_EQ(st.stored_messages("q", "Default"), 2);
  EXPECT_EQ(st.sidecar_rows(), 1);
}

TEST(Storage, DuplicateWritesNothingAndNamesSmallestOffset) {
  Storage st{test_clock()};
  st.set_options("q", {});
  ASSERT_TRUE(push_at(st, segment({"a"}), 1000).queued);        // offset 0
  ASSERT_TRUE(push_at(st, segment({"x", "y"}), 1000).queued);   // 1, 2
  st.set_options("q", {.dedup_window_seconds = 0});
  ASSERT_TRUE(push_at(st, segment({"a"}), 1000).queued);        // offset 3: same key again, window off
  st.set_options("q", {});
  const PartitionRows rows = st.partition_rows("q", "Default");
  const PushResult r = push_at(st, segment({"new", "a", "y"}), 2000);
  EXPECT_FALSE(r.queued);
  EXPECT_TRUE(r.probe_ran);
  ASSERT_EQ(r.duplicates.size(), 2u);
  EXPECT_EQ(r.duplicates[0], std::make_pair(uint32_t{1}, int64_t{0}));  // smallest of {0, 3}
  EXPECT_EQ(r.duplicates[1], std::make_pair(uint32_t{2}, int64_t{2}));
  const PartitionRows after = st.partition_rows("q", "Default");
  EXPECT_EQ(after.segments, rows.segments);
  EXPECT_EQ(after.sidecar_rows, rows.sidecar_rows);
  EXPECT_EQ(st.partition_state("q", "Default").last_offset, 3);
}

TEST(Storage, TheConnectionThatCreatesTheDatabaseChoosesItsPageSize) {
  const std::string uri = Storage::shared_memory_uri("storage-test-page-size");
  StorageOptions small;
  small.page_size_bytes = 1024;
  Storage first(uri, test_clock(), nullptr, small);
  EXPECT_EQ(first.page_size_bytes(), 1024);
  StorageOptions other;
  other.page_size_bytes = 2048;
  Storage second(uri, test_clock(), nullptr, other);  // the database exists: its size stays
  EXPECT_EQ(second.page_size_bytes(), 1024);
  first.set_options("q", {});
  EXPECT_TRUE(push_at(second, segment({"a", "b"}), 1000).queued);
  EXPECT_EQ(first.integrity_check(), "ok");

  Storage plain(test_clock());  // a private database with no size asked: SQLite's own
  EXPECT_EQ(plain.page_size_bytes(), 4096);
}

TEST(Storage, WindowBoundaryIsInclusive) {
  Storage st{test_clock()};
  st.set_options("q", {.dedup_window_seconds = 60});
  ASSERT_TRUE(push_at(st, segment({"a"}), 10'000).queued);
  EXPECT_FALSE(push_at(st, segment({"a"}), 70'000).queued);  // created_at == now - window
  const PushResult later = push_at(st, segment({"a"}), 70'001);
  EXPECT_TRUE(later.queued);
  EXPECT_EQ(later.base_offset, 1);
}

TEST(Storage, WindowZeroSkipsProbeButWritesSidecar) {
  Storage st{test_clock()};
  st.set_options("q", {.dedup_window_seconds = 0});
  ASSERT_TRUE(push_at(st, segment({"a"}), 1000).queued);
  const PushResult r = push_at(st, segment({"a"}), 1000);
  EXPECT_TRUE(r.queued);
  EXPECT_FALSE(r.probe_ran);
  EXPECT_EQ(r.rows_scanned, 0u);
  EXPECT_EQ(st.sidecar_rows(), 2);
  EXPECT_TRUE(ack_at(st, "q", "Default", "a", "g", 2000).acked);
}

TEST(Storage, PartitionScope) {
  Storage st{test_clock()};
  ASSERT_TRUE(push_at(st, segment({"a"}, "p1"), 1000).queued);
  EXPECT_TRUE(push_at(st, segment({"a"}, "p2"), 1000).queued);
  SegmentPush other = segment({"a"}, "p1");
  other.queue = "q2";
  EXPECT_TRUE(push_at(st, other, 1000).queued);
}

TEST(Storage, WatermarkNarrowsTheProbe) {
  Storage st{test_clock()};
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(push_at(st, segment({"k" + std::to_string(i)}), 1000).queued);
  const PushResult full = push_at(st, segment({"k3"}), 1000);
  EXPECT_FALSE(full.queued);
  EXPECT_EQ(full.rows_scanned, 10u);
  // A watermark of 5 vouches for offsets <= 5: only rows 6..9 are scanned.
  const PushResult narrow = push_at(st, segment({"zz"}, "Default", 5), 1000);
  EXPECT_TRUE(narrow.queued);
  EXPECT_EQ(narrow.rows_scanned, 4u);
  // A watermark computed with a smaller window than storage's is ignored.
  SegmentPush stale = segment({"zz3"}, "Default", 11);
  stale.window_seconds_assumed = 60;
  EXPECT_TRUE(push_at(st, stale, 1000).probe_ran);
  // A watermark at the end skips the probe entirely.
  const PushResult skipped = push_at(st, segment({"zz2"}, "Default", 12), 1000);
  EXPECT_TRUE(skipped.queued);
  EXPECT_FALSE(skipped.probe_ran);
}

TEST(Storage, CoveringSegmentAndDeletion) {
  Storage st{test_clock()};
  ASSERT_TRUE(push_at(st, segment({"a", "b", "c"}), 1000).queued);
  auto seg = st.covering_segment("q", "Default", 2);
  ASSERT_TRUE(seg);
  EXPECT_EQ(seg->base_offset, 0);
  EXPECT_EQ(frame_at(seg->frames, 2)->transaction_id, "c");
  ASSERT_TRUE(st.delete_segment("q", "Default", 1));
  EXPECT_FALSE(st.covering_segment("q", "Default", 2));
  EXPECT_EQ(st.stored_messages("q", "Default"), 0);
  EXPECT_FALSE(push_at(st, segment({"b"}), 1000).queued);  // the sidecar still knows "b"
  auto ack = ack_at(st, "q", "Default", "b", "g", 1000);
  EXPECT_TRUE(ack.acked);
  EXPECT_FALSE(ack.message_id.has_value());
}

TEST(Storage, PurgeHonoursTheFloorInBoundedSteps) {
  Storage st(test_clock(), {.purge_batch = 2});
  st.set_options("q", {.dedup_window_seconds = 60});
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(push_at(st, segment({"k" + std::to_string(i)}), 1000 + i).queued);
  // 899 s later nothing is purged although the window (60 s) has long passed.
  EXPECT_TRUE(purge_at(st, "q", "Default", 1000 + 899'000).rows.empty());
  const PurgeStep first = purge_at(st, "q", "Default", 1000 + 900'003);
  EXPECT_EQ(first.floor_seconds, 900);
  EXPECT_EQ(first.rows.size(), 2u);
  EXPECT_TRUE(first.more);
  EXPECT_EQ(first.txns_start_after, 2);
  const PurgeStep second = purge_at(st, "q", "Default", 1000 + 900'003);
  EXPECT_EQ(second.rows.size(), 1u);  // created_at 1003 is not < cutoff 1003
  EXPECT_FALSE(second.more);
  EXPECT_EQ(second.txns_start_after, 3);
  EXPECT_FALSE(ack_at(st, "q", "Default", "k0", "g", 1000 + 900'003).acked);
  EXPECT_TRUE(ack_at(st, "q", "Default", "k3", "g", 1000 + 900'003).acked);
}

TEST(Storage, RetentionDeletesOldAndFullyAckedSegments) {
  Storage st{test_clock()};
  st.set_options("q", {.dedup_window_seconds = 60, .retention_seconds = 0, .completed_retention_seconds = 10});
  ASSERT_TRUE(push_at(st, segment({"a", "b"}), 1000).queued);
  ASSERT_TRUE(push_at(st, segment({"c"}), 1000).queued);
  ASSERT_TRUE(ack_at(st, "q", "Default", "a", "g", 2000).acked);
  EXPECT_TRUE(retention_at(st, "q", "Default", 20'000).empty());  // b is not acked
  ASSERT_TRUE(ack_at(st, "q", "Default", "b", "g", 2000).acked);
  const auto deleted = retention_at(st, "q", "Default", 20'000);
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(deleted[0].end_offset, 1);
  st.set_options("q", {.dedup_window_seconds = 60, .retention_seconds = 5, .completed_retention_seconds = 0});
  EXPECT_EQ(retention_at(st, "q", "Default", 20'000).size(), 1u);
  EXPECT_EQ(st.stored_messages("q", "Default"), 0);
}

TEST(Storage, ReadSkipsDeletedSegmentsAndHonoursLimit) {
  Storage st{test_clock()};
  ASSERT_TRUE(push_at(st, segment({"a", "b"}), 1000).queued);
  ASSERT_TRUE(push_at(st, segment({"c"}), 1000).queued);
  ASSERT_TRUE(push_at(st, segment({"d", "e"}), 1000).queued);
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
    Storage st(path, test_clock());
    ASSERT_TRUE(push_at(st, segment({"a"}), 1000).queued);
  }
  Storage reopened(path, test_clock());
  EXPECT_FALSE(push_at(reopened, segment({"a"}), 2000).queued);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace qdt::impl

namespace qdt::impl {
namespace {

// Checked mode: inside the push transaction, the re-probe ignores the
// watermark and reports originals the watermark claimed were absent.
TEST(Storage, CheckedModeSeesPastTheWatermark) {
  Storage st(test_clock(), {.checked_mode = true, .variant = Variant::none, .synchronous = ""});
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(push_at(st, segment({"k" + std::to_string(i)}), 1000).queued);
  const PushResult c = push_at(st, segment({"new", "k1"}, "Default", 2), 1000);
  EXPECT_TRUE(c.checked);
  ASSERT_EQ(c.checked_duplicates.size(), 1u);
  EXPECT_EQ(c.checked_duplicates[0], std::make_pair(uint32_t{1}, int64_t{1}));
  EXPECT_EQ(c.checked_frames_at_or_below_watermark, 1u);  // k1 at offset 1 <= watermark 2
  EXPECT_TRUE(c.queued);  // the watermark hid k1 from the real probe: what the checker catches
  EXPECT_EQ(push_at(st, segment({"k3"}, "Default", 2), 1000).checked_frames_at_or_below_watermark, 0u);
  SegmentPush stale = segment({"k1", "x"}, "Default", 2);
  stale.window_seconds_assumed = 60;  // push() ignores this watermark, so nothing to check
  const PushResult s = push_at(st, stale, 1000);
  EXPECT_FALSE(s.checked);
  EXPECT_FALSE(s.queued);
  Storage plain(test_clock());
  EXPECT_FALSE(push_at(plain, segment({"a"}, "Default", 0), 1000).checked);
}

}  // namespace
}  // namespace qdt::impl

namespace qdt::impl {
namespace {

// Moves the partition's last_offset just before the push's first write, on
// the pushing connection (what a second writer could do without the lock).
struct MovesLastOffsetBeforeTheFirstWrite : StatementGate {
  sqlite3* db = nullptr;
  bool armed = false;
  int before_statement(TxnKind, int64_t, StatementKind kind) override {
    if (armed && kind == StatementKind::write) {
      armed = false;
      EXPECT_EQ(sqlite3_exec(db, "UPDATE partitions SET last_offset = last_offset + 5", nullptr, nullptr, nullptr),
                SQLITE_OK);
    }
    return SQLITE_OK;
  }
};

// The allocating UPDATE sets the span from the last_offset the transaction
// read; had it moved since, the UPDATE changes no row and the push fails
// (rolled back) instead of handing out offsets that overlap.
TEST(Storage, AllocationRefusesALastOffsetThatMovedSinceItWasRead) {
  test_clock().set(1000);
  MovesLastOffsetBeforeTheFirstWrite gate;
  Storage st(Storage::shared_memory_uri("storage-test-moved-offset"), test_clock(), &gate);
  gate.db = st.database().handle();
  st.set_options("q", {});
  ASSERT_TRUE(st.push(segment({"a"})).queued);
  gate.armed = true;
  EXPECT_THROW(st.push(segment({"b"})), std::logic_error);
  EXPECT_FALSE(gate.armed);
  EXPECT_FALSE(st.in_transaction());
  EXPECT_EQ(st.partition_state("q", "Default").last_offset, 0);
  const PushResult r = st.push(segment({"b"}));
  EXPECT_TRUE(r.queued);
  EXPECT_EQ(r.base_offset, 1);
}

}  // namespace
}  // namespace qdt::impl
