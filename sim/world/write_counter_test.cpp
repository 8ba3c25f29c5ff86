#include "sim/world/write_counter.h"

#include <gtest/gtest.h>

#include <cassert>
#include <functional>
#include <memory>
#include <stdexcept>

#include "sim/world/test_segment.h"

#include "impl/storage/sqlite/storage.h"

namespace qdt::sim {
namespace {


// Fails the COMMIT of every write transaction: the transaction rolls back.
struct FailingCommit : impl::StatementGate {
  bool armed = false;
  int before_statement(impl::TxnKind, int64_t, impl::StatementKind kind) override {
    return armed && kind == impl::StatementKind::commit ? SQLITE_IOERR : SQLITE_OK;
  }
};

TEST(WriteCounter, CountsCommittedWritesOnly) {
  impl::ManualClock clock(1000);
  FailingCommit gate;
  const std::string uri = impl::Storage::shared_memory_uri("write-counter-test");
  impl::Storage storage(uri, clock, &gate);
  install_write_counter(storage);
  install_write_counter(storage);  // installing again changes nothing
  WriteCounter counter(storage);
  storage.set_options("q", {});
  const WrittenRows start = counter.read();

  // A queued push writes one segment row and one sidecar row.
  ASSERT_TRUE(storage.push(one_frame_segment("a")).queued);
  const WrittenRows queued = counter.read();
  EXPECT_EQ(queued.segments, start.segments + 1);
  EXPECT_EQ(queued.sidecar_rows, start.sidecar_rows + 1);

  // A duplicate writes nothing.
  ASSERT_FALSE(storage.push(one_frame_segment("a")).queued);
  EXPECT_TRUE(counter.read() == queued);

  // A push whose COMMIT fails wrote both rows, then rolled them back: the
  // counter rolls back with them.
  gate.armed = true;
  EXPECT_THROW(storage.push(one_frame_segment("b")), impl::StorageError);
  gate.armed = false;
  EXPECT_TRUE(counter.read() == queued);
  EXPECT_EQ(storage.sidecar_rows(), 1);

  // Another partition's write counts: the counter is the connection's.
  ASSERT_TRUE(storage.push(one_frame_segment("c", "other")).queued);
  EXPECT_EQ(counter.read().sidecar_rows, queued.sidecar_rows + 1);
}

TEST(WriteCounter, AnotherConnectionsWritesAreNotCounted) {
  impl::ManualClock clock(1000);
  const std::string uri = impl::Storage::shared_memory_uri("write-counter-test-two");
  impl::Storage mine(uri, clock);
  impl::Storage theirs(uri, clock);
  install_write_counter(mine);
  install_write_counter(theirs);
  WriteCounter counter(mine);
  theirs.set_options("q", {});
  const WrittenRows before = counter.read();
  ASSERT_TRUE(theirs.push(one_frame_segment("a")).queued);
  EXPECT_TRUE(counter.read() == before);
}

// The one-statement fingerprint says what partition_state and the counter
// say apart, for a partition that exists and for one that does not.
TEST(WriteCounter, FingerprintIsThePartitionStateBesideTheCounter) {
  impl::ManualClock clock(1000);
  const std::string uri = impl::Storage::shared_memory_uri("write-counter-test-fingerprint");
  impl::Storage storage(uri, clock);
  install_write_counter(storage);
  WriteCounter counter(storage);
  storage.set_options("q", {});
  auto expected = [&](const std::string& partition) {
    const impl::PartitionState state = storage.partition_state("q", partition);
    const WrittenRows rows = counter.read();
    return history::PartitionFingerprint{state.last_offset, state.txns_start, rows.segments, rows.sidecar_rows};
  };
  EXPECT_EQ(counter.fingerprint("q", "p"), expected("p"));
  EXPECT_EQ(counter.fingerprint("q", "p").last_offset, -1);
  ASSERT_TRUE(storage.push(one_frame_segment("a")).queued);
  ASSERT_TRUE(storage.push(one_frame_segment("b")).queued);
  EXPECT_EQ(counter.fingerprint("q", "p"), expected("p"));
  EXPECT_EQ(counter.fingerprint("q", "p").last_offset, 1);
  EXPECT_EQ(counter.fingerprint("q", "p").sidecar_rows, 2);
  EXPECT_EQ(counter.fingerprint("q", "missing"), expected("missing"));
  EXPECT_EQ(counter.fingerprint("other", "p"), expected("other"));
}

// A broken storage that answers duplicate but rewrote the original's sidecar
// row on the way (made here by a gate that writes just before the COMMIT):
// the fingerprints around the push differ, which is what the checker reads.
struct WritesBeforeCommit : impl::StatementGate {
  sqlite3* db = nullptr;
  bool armed = false;
  std::string sql = "UPDATE log_txns SET created_at_ms = created_at_ms";
  int before_statement(impl::TxnKind, int64_t, impl::StatementKind kind) override {
    if (armed && kind == impl::StatementKind::commit) {
      armed = false;
      const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
      EXPECT_EQ(rc, SQLITE_OK);
    }
    return SQLITE_OK;
  }
};

TEST(WriteCounter, SeesTheRowADuplicateVerdictWrote) {
  impl::ManualClock clock(1000);
  WritesBeforeCommit gate;
  impl::Storage storage(impl::Storage::shared_memory_uri("write-counter-test-broken"), clock, &gate);
  gate.db = storage.database().handle();
  install_write_counter(storage);
  WriteCounter counter(storage);
  storage.set_options("q", {});
  ASSERT_TRUE(storage.push(one_frame_segment("a")).queued);
  const history::PartitionFingerprint before = counter.fingerprint("q", "p");
  gate.armed = true;
  ASSERT_FALSE(storage.push(one_frame_segment("a")).queued);
  ASSERT_FALSE(gate.armed);
  const history::PartitionFingerprint after = counter.fingerprint_after("q", "p");
  EXPECT_EQ(after.sidecar_rows, before.sidecar_rows + 1);
  EXPECT_EQ(after.segments, before.segments);
  EXPECT_EQ(after.last_offset, before.last_offset);
  // Another duplicate that bumped the partition's last_offset.
  gate.sql = "UPDATE partitions SET last_offset = last_offset + 1";
  gate.armed = true;
  const history::PartitionFingerprint before_bump = counter.fingerprint("q", "p");
  ASSERT_FALSE(storage.push(one_frame_segment("a")).queued);
  ASSERT_FALSE(gate.armed);
  EXPECT_EQ(counter.fingerprint_after("q", "p").last_offset, before_bump.last_offset + 1);
}

// fingerprint_after, which reads no statement, against fingerprint(), which
// does, after each kind of transaction that follows a before-reading.
TEST(WriteCounter, TheAfterFingerprintIsWhatAReadingSays) {
  impl::ManualClock clock(1000);
  FailingCommit gate;
  impl::Storage storage(impl::Storage::shared_memory_uri("write-counter-test-after"), clock, &gate);
  install_write_counter(storage);
  WriteCounter counter(storage);
  storage.set_options("q", {});
  int transactions = 0;
  // `write` runs between a before- and an after-reading of partition `p`.
  auto around = [&](const std::string& p, const std::function<void()>& write) {
    const history::PartitionFingerprint before = counter.fingerprint("q", p);
    write();
    ++transactions;
    const history::PartitionFingerprint after = counter.fingerprint_after("q", p);
    EXPECT_EQ(after, counter.fingerprint("q", p)) << "transaction " << transactions;
    return std::make_pair(before, after);
  };
  auto [b1, a1] = around("p", [&] { ASSERT_TRUE(storage.push(one_frame_segment("a")).queued); });  // creates p
  EXPECT_EQ(a1.last_offset, 0);
  auto [b2, a2] = around("p", [&] { ASSERT_TRUE(storage.push(one_frame_segment("b")).queued); });
  EXPECT_EQ(a2.last_offset, b2.last_offset + 1);
  auto [b3, a3] = around("p", [&] { ASSERT_FALSE(storage.push(one_frame_segment("a")).queued); });
  EXPECT_EQ(a3, b3);
  gate.armed = true;
  auto [b4, a4] = around("p", [&] { EXPECT_THROW(storage.push(one_frame_segment("c")), impl::StorageError); });
  gate.armed = false;
  EXPECT_EQ(a4, b4);
  auto [b5, a5] = around("p", [&] { ASSERT_TRUE(storage.push(one_frame_segment("d", "p2")).queued); });
  EXPECT_EQ(a5.last_offset, b5.last_offset);
  EXPECT_EQ(a5.sidecar_rows, b5.sidecar_rows + 1);
  auto [b5b, a5b] = around("p", [&] {
    ASSERT_TRUE(storage.push(one_frame_segment("f", "p2")).queued);
    ASSERT_TRUE(storage.push(one_frame_segment("g", "p2")).queued);  // p2's last_offset is not p's
  });
  EXPECT_EQ(a5b.last_offset, b5b.last_offset);  // another row's update
  // Both partitions renamed alike: the second row collides (UNIQUE (queue_id,
  // name)) and SQLite undoes the statement, the first row's update with it.
  auto [b6, a6] = around("p", [&] {
    storage.database().exec("BEGIN IMMEDIATE");
    storage.database().exec("UPDATE partitions SET txns_start = 1 WHERE name = 'p'");
    EXPECT_THROW(storage.database().exec("UPDATE partitions SET last_offset = last_offset + 7, name = 'same'"),
                 impl::StorageError);
    storage.database().exec("COMMIT");
  });
  EXPECT_EQ(a6.last_offset, b6.last_offset);
  EXPECT_EQ(a6.txns_start, 1);
  // More partitions updates than the counter keeps between two readings:
  // read again, never a value from a half-kept list.
  auto [b8, a8] = around("p", [&] {
    storage.database().exec("BEGIN IMMEDIATE");
    for (int i = 0; i < 300; ++i) storage.database().exec("UPDATE partitions SET last_offset = last_offset + 1");
    storage.database().exec("COMMIT");
  });
  EXPECT_EQ(a8.last_offset, b8.last_offset + 300);
  // A partition that did not exist at the before-reading is read.
  auto [b7, a7] = around("new", [&] { ASSERT_TRUE(storage.push(one_frame_segment("e", "new")).queued); });
  EXPECT_EQ(b7.last_offset, -1);
  EXPECT_EQ(a7.last_offset, 0);
}

// Raw SQL on an instrumented connection: each way SQLite keeps or undoes a
// row change, against the count a reader of the rules expects.
class WriteCounterSql : public ::testing::Test {
 protected:
  WriteCounterSql() : storage_(impl::Storage::shared_memory_uri("write-counter-sql"), clock_) {
    install_write_counter(storage_);
    counter_ = std::make_unique<WriteCounter>(storage_);
  }
  // Runs `sql`; false when SQLite refused it (its error is the point).
  bool run(const std::string& sql) {
    try {
      storage_.database().exec(sql);
      return true;
    } catch (const impl::StorageError&) {
      return false;
    }
  }
  static std::string row(int end_offset) {
    return "(1, " + std::to_string(end_offset) + ", " + std::to_string(end_offset) + ", 0, x'00')";
  }
  static std::string insert(const std::string& verb, std::initializer_list<int> end_offsets) {
    std::string sql = verb + " INTO segments (partition_id, end_offset, base_offset, created_at_ms, frames) VALUES ";
    for (int e : end_offsets) sql += row(e) + (e == *(end_offsets.end() - 1) ? "" : ", ");
    return sql;
  }
  int64_t segments() { return counter_->read().segments; }
  int64_t stored() {
    impl::Statement s(storage_.database().handle(), "SELECT count(*) FROM segments");
    const bool has = s.step();
    assert(has);
    return s.column_int(0);
  }

  impl::ManualClock clock_{1000};
  impl::Storage storage_;
  std::unique_ptr<WriteCounter> counter_;
};

TEST_F(WriteCounterSql, AutocommittedStatementsCountWhatTheyKept) {
  ASSERT_TRUE(run(insert("INSERT", {0, 1})));
  EXPECT_EQ(segments(), 2);
  // The second row collides with row 1: SQLite undoes the whole statement.
  ASSERT_FALSE(run(insert("INSERT", {2, 1})));
  EXPECT_EQ(stored(), 2);
  EXPECT_EQ(segments(), 2);
  ASSERT_TRUE(run("UPDATE segments SET created_at_ms = 5"));
  EXPECT_EQ(segments(), 4);
  // No WHERE: with a pre-update hook SQLite deletes row by row, and says so.
  ASSERT_TRUE(run("DELETE FROM segments"));
  EXPECT_EQ(segments(), 6);
  EXPECT_EQ(counter_->read().sidecar_rows, 0);
}

TEST_F(WriteCounterSql, AStatementUndoneInsideATransactionThatCommitsCountsNothing) {
  ASSERT_TRUE(run(insert("INSERT", {0})));
  ASSERT_TRUE(run("BEGIN IMMEDIATE"));
  ASSERT_TRUE(run(insert("INSERT", {1})));
  ASSERT_FALSE(run(insert("INSERT", {2, 0})));  // ABORT: row 2 undone, the transaction goes on
  ASSERT_FALSE(run(insert("INSERT", {3, 0})));  // twice in a row: nothing ran in between
  EXPECT_EQ(segments(), 1);                    // nothing of the open transaction yet
  ASSERT_TRUE(run("COMMIT"));
  EXPECT_EQ(stored(), 2);
  EXPECT_EQ(segments(), 2);
}

TEST_F(WriteCounterSql, OrFailKeepsAndCountsTheRowsBeforeTheFailure) {
  ASSERT_TRUE(run(insert("INSERT", {0})));
  ASSERT_TRUE(run("BEGIN IMMEDIATE"));
  ASSERT_FALSE(run(insert("INSERT OR FAIL", {1, 2, 0, 3})));
  ASSERT_TRUE(run("COMMIT"));
  EXPECT_EQ(stored(), 3);
  EXPECT_EQ(segments(), 3);
}

TEST_F(WriteCounterSql, ARolledBackTransactionCountsNothing) {
  ASSERT_TRUE(run("BEGIN IMMEDIATE"));
  ASSERT_TRUE(run(insert("INSERT", {0, 1})));
  ASSERT_TRUE(run("ROLLBACK"));
  EXPECT_EQ(segments(), 0);
  // The last statement before COMMIT is settled by the COMMIT.
  ASSERT_TRUE(run("BEGIN IMMEDIATE; " + insert("INSERT", {0}) + "; COMMIT"));
  EXPECT_EQ(segments(), 1);
}

// A COMMIT that another connection's reader holds off fails busy and leaves
// the transaction open: nothing counts until the retry commits. (SQLite 3.40
// calls the commit hook only once the lock is had; the counter does not rely
// on that order: it asks whether the transaction ended.)
TEST_F(WriteCounterSql, ACommitThatFailedBusyCountsNothingUntilItCommits) {
  ASSERT_TRUE(run(insert("INSERT", {0})));
  impl::Storage other(impl::Storage::shared_memory_uri("write-counter-sql"), clock_);
  impl::Statement reading(other.database().handle(), "SELECT end_offset FROM segments");
  ASSERT_TRUE(reading.step());  // a read transaction left open
  ASSERT_TRUE(run("BEGIN IMMEDIATE"));
  ASSERT_TRUE(run(insert("INSERT", {1})));
  ASSERT_FALSE(run("COMMIT"));
  ASSERT_FALSE(sqlite3_get_autocommit(storage_.database().handle()));
  EXPECT_EQ(segments(), 1);
  ASSERT_TRUE(run("ROLLBACK"));
  EXPECT_EQ(segments(), 1);
  ASSERT_TRUE(run("BEGIN IMMEDIATE; " + insert("INSERT", {1})));
  ASSERT_FALSE(run("COMMIT"));
  EXPECT_EQ(segments(), 1);
  reading.reset();
  ASSERT_TRUE(run("COMMIT"));  // the retry commits
  EXPECT_EQ(segments(), 2);
}

TEST_F(WriteCounterSql, AnotherTablesRowsAreNotCounted) {
  ASSERT_TRUE(run("INSERT INTO queues (name) VALUES ('q')"));
  ASSERT_TRUE(run("INSERT INTO log_txns (partition_id, end_offset, base_offset, created_at_ms, hashes) "
                  "VALUES (1, 0, 0, 0, zeroblob(16))"));
  EXPECT_EQ(segments(), 0);
  EXPECT_EQ(counter_->read().sidecar_rows, 1);
}

// The abort rule reads SQLite's change count, which a trigger's program
// moves even when its statement is undone: a schema with triggers is refused.
TEST_F(WriteCounterSql, RefusesASchemaWithTriggers) {
  ASSERT_TRUE(run("CREATE TEMP TRIGGER t AFTER INSERT ON queues BEGIN DELETE FROM acks; END"));
  EXPECT_THROW(install_write_counter(storage_), std::logic_error);
  ASSERT_TRUE(run("DROP TRIGGER t"));
  install_write_counter(storage_);
  ASSERT_TRUE(run("CREATE TRIGGER main.t AFTER INSERT ON queues BEGIN DELETE FROM acks; END"));
  EXPECT_THROW(install_write_counter(storage_), std::logic_error);
}

}  // namespace
}  // namespace qdt::sim
