// Several connections on one database, and faults at every statement: the
// concurrency and failure semantics of docs/semantics.md §2.4, without a simulator. A gate
// runs another connection's work at a chosen statement, which is how the
// world interleaves fibers between statements.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <functional>

#include "impl/storage/sqlite/storage.h"

namespace qdt::impl {
namespace {

SegmentPush one(const std::string& txn, uint64_t n) {
  SegmentPush s;
  s.queue = "q";
  s.partition = "Default";
  Frame f;
  f.message_id = make_uuid_v7(1000, n, n);
  f.transaction_id = txn;
  f.payload = "{}";
  f.hash = hash_transaction_id(txn);
  s.frames.push_back(std::move(f));
  return s;
}

// Runs `interleave` once, just before statement `at` of the first write
// transaction that reaches it (BEGIN IMMEDIATE = statement 0 of that transaction).
struct InterleavingGate : StatementGate {
  int64_t at = -1;
  bool write_txn_only = true;
  std::function<void()> interleave;
  int begins = 0;
  int busy = 0;
  int before_statement(TxnKind, int64_t index, StatementKind kind) override {
    if (kind == StatementKind::begin) ++begins;
    if (interleave && index == at) {
      auto fn = std::move(interleave);
      interleave = nullptr;
      fn();
    }
    return SQLITE_OK;
  }
  bool wait_busy(TxnKind, uint32_t) override {
    ++busy;
    return false;  // no one can release the lock from inside this test: give up
  }
};

struct SharedDatabase : testing::Test {
  ManualClock clock{1'000'000};
  std::string uri = Storage::shared_memory_uri("connection-test-" +
                                               std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
  InterleavingGate gate_a, gate_b;
};

TEST_F(SharedDatabase, ConnectionsShareRows) {
  Storage a(uri, clock, &gate_a), b(uri, clock, &gate_b);
  ASSERT_TRUE(a.push(one("k", 1)).queued);
  EXPECT_FALSE(b.push(one("k", 2)).queued);
  EXPECT_EQ(b.stored_messages("q", "Default"), 1);
}

// The reference: while A holds the write lock between its probe and its
// allocation, B cannot even begin: SQLITE_BUSY.
TEST_F(SharedDatabase, TheWriteLockSerializesProbeAndAllocation) {
  Storage a(uri, clock, &gate_a), b(uri, clock, &gate_b);
  ASSERT_TRUE(a.push(one("other", 0)).queued);  // the partition exists and is not empty: A probes
  bool b_failed_busy = false;
  gate_a.at = 3;  // after BEGIN, find_partition and the probe: just before the allocation
  gate_a.interleave = [&] {
    try {
      b.push(one("k", 2));
    } catch (const StorageError& e) {
      b_failed_busy = e.code() == SQLITE_BUSY;
    }
  };
  const PushResult ra = a.push(one("k", 1));
  EXPECT_TRUE(ra.queued);
  EXPECT_TRUE(ra.probe_ran);
  EXPECT_TRUE(b_failed_busy);
  EXPECT_GE(gate_b.busy, 1);
  EXPECT_FALSE(b.push(one("k", 3)).queued);  // after A committed, B sees A's message
  EXPECT_EQ(a.stored_messages("q", "Default"), 2);
}

// Variant probe-outside-lock: the same interleaving, placed between A's
// probe transaction and its allocation transaction, writes the key twice.
TEST_F(SharedDatabase, ProbeOutsideTheLockLetsACollidingPushIn) {
  Storage a(uri, clock, &gate_a, {.variant = Variant::probe_outside_lock});
  Storage b(uri, clock, &gate_b);
  ASSERT_TRUE(b.push(one("other", 0)).queued);
  int a_begins_seen = 0;
  gate_a.at = 0;
  gate_a.interleave = [&] { ++a_begins_seen; };  // the probe transaction's BEGIN: not yet
  const PushResult first = a.push(one("k0", 9));  // warm-up: consumes the first hook
  ASSERT_TRUE(first.queued);
  ASSERT_EQ(a_begins_seen, 1);
  // Now interleave B just before A's second transaction (the allocation) begins.
  int begins_at_interleave = 0;
  gate_a.at = 0;
  gate_a.interleave = [&] {
    // The first BEGIN (probe) passes; re-arm for the second.
    begins_at_interleave = gate_a.begins;
    gate_a.at = 0;
    gate_a.interleave = [&] { EXPECT_TRUE(b.push(one("k", 2)).queued); };
  };
  const PushResult ra = a.push(one("k", 1));
  EXPECT_EQ(begins_at_interleave, gate_a.begins - 1);
  EXPECT_TRUE(ra.queued);  // the probe ran before B committed: A writes k again
  Storage check(uri, clock);
  int64_t k = 0;
  for (const StoredMessage& m : check.inspect_messages("q", "Default")) k += m.transaction_id == "k" ? 1 : 0;
  EXPECT_EQ(k, 2);  // the double write the checkers must catch
}

// Variant stamp-before-lock: a push that read `now` before waiting for the
// lock commits an older created_at at a higher offset.
TEST_F(SharedDatabase, StampBeforeLockRunsAgainstOffsetOrder) {
  Storage a(uri, clock, &gate_a, {.variant = Variant::stamp_before_lock});
  Storage b(uri, clock, &gate_b);
  gate_a.at = 0;  // A has read `now`; before its BEGIN, time passes and B commits
  gate_a.interleave = [&] {
    clock.set(1'000'500);
    ASSERT_TRUE(b.push(one("b", 2)).queued);
  };
  const PushResult ra = a.push(one("a", 1));
  ASSERT_TRUE(ra.queued);
  EXPECT_EQ(ra.base_offset, 1);
  EXPECT_EQ(ra.created_at_ms, 1'000'000);  // older than offset 0's 1'000'500
}

// Every error path walked (SQLite's own I/O-error tests): fail the push at
// statement k for every k; nothing of the failed transaction is visible.
struct FailingGate : StatementGate {
  int64_t fail_at = -1;
  bool fired = false;
  int before_statement(TxnKind, int64_t index, StatementKind kind) override {
    if (!fired && (index == fail_at || (fail_at >= 0 && kind == StatementKind::commit))) {
      fired = true;
      return SQLITE_IOERR;
    }
    return SQLITE_OK;
  }
};

TEST(StorageFaults, APushFailedAtAnyStatementLeavesNothing) {
  ManualClock clock{1'000'000};
  const std::string uri = Storage::shared_memory_uri("connection-test-faults");
  FailingGate gate;
  Storage st(uri, clock, &gate);
  Storage inspector(uri, clock);
  ASSERT_TRUE(st.push(one("old", 0)).queued);
  int failures = 0;
  for (int64_t k = 0; k < 32; ++k) {
    gate.fail_at = k;
    gate.fired = false;
    const PartitionRows before = inspector.partition_rows("q", "Default");
    bool failed = false;
    try {
      st.push(one("new-" + std::to_string(k), static_cast<uint64_t>(k) + 1));
    } catch (const StorageError& e) {
      failed = true;
      EXPECT_EQ(e.code(), SQLITE_IOERR);
    }
    const PartitionRows after = inspector.partition_rows("q", "Default");
    ASSERT_TRUE(gate.fired) << "every statement index up to COMMIT fails the push";
    ASSERT_TRUE(failed);
    EXPECT_EQ(after.last_offset, before.last_offset) << "k=" << k;
    EXPECT_EQ(after.segments, before.segments) << "k=" << k;
    EXPECT_EQ(after.sidecar_rows, before.sidecar_rows) << "k=" << k;
    EXPECT_FALSE(st.in_transaction());
    ++failures;
  }
  EXPECT_EQ(failures, 32);
  gate.fail_at = -1;
  EXPECT_TRUE(st.push(one("new-0", 99)).queued);  // the failed keys were never written
}

TEST(StorageFaults, AcksPurgesAndReadsRollBackToo) {
  ManualClock clock{1'000'000};
  const std::string uri = Storage::shared_memory_uri("connection-test-faults-2");
  FailingGate gate;
  Storage st(uri, clock, &gate, {.purge_batch = 10});
  Storage inspector(uri, clock);
  ASSERT_TRUE(st.push(one("a", 0)).queued);
  gate.fail_at = 2;
  gate.fired = false;
  EXPECT_THROW(st.ack("q", "Default", "a", "g"), StorageError);  // fails at the insert: rolled back
  clock.set(1'000'000 + 4000 * 1000);
  gate.fail_at = 3;
  gate.fired = false;
  EXPECT_THROW(st.purge_step("q", "Default"), StorageError);
  EXPECT_EQ(inspector.partition_rows("q", "Default").sidecar_rows, 1);
  gate.fail_at = 1;
  gate.fired = false;
  EXPECT_THROW(st.read("q", "Default", 0, 0), StorageError);
  gate.fired = false;
  EXPECT_THROW(st.covering_segment("q", "Default", 0), StorageError);  // at its COMMIT
  gate.fail_at = -1;
  const PurgeStep step = st.purge_step("q", "Default");
  EXPECT_EQ(step.rows.size(), 1u);
}

}  // namespace
}  // namespace qdt::impl
