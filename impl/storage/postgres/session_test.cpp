// Statement stepping (docs/semantics.md §9.2): a session waiting for a row lock held by
// another session of the run is classified blocked, never done, and settles
// once the holder commits.
#include <gtest/gtest.h>

#include <memory>

#include "impl/storage/postgres/lock_probe.h"
#include "impl/storage/postgres/pg_sql.h"
#include "impl/storage/postgres/postgres_test_env.h"
#include "impl/storage/postgres/session.h"

namespace qdt::impl::postgres::testing {
namespace {

using nlohmann::json;

constexpr const char* kPush =
    "SELECT queen.log_push_one_v1($1, $2, $3::int, $4, -1, $5, p_window_assumed => NULL)";

std::vector<Param> push_params(const std::string& partition, const std::string& id) {
  return {Param::text("q"), Param::text(partition), Param::text("1"), Param::bytes(hashes({id})),
          Param::bytes("frames")};
}

class Stepping : public PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    probe_ = std::make_unique<LockProbe>(cluster().connect(database()));
    a_ = std::make_unique<Session>(cluster().base_conninfo(), database(), "a");
    b_ = std::make_unique<Session>(cluster().base_conninfo(), database(), "b");
    pids_ = {a_->backend_pid(), b_->backend_pid()};
  }
  // A statement no other session blocks.
  StatementOutcome step(Session& s, const std::string& sql, const std::vector<Param>& params = {}) {
    s.send(sql, params);
    EXPECT_EQ(s.wait_until_done_or_blocked(*probe_, pids_), Progress::returned) << s.name() << ": " << sql;
    StatementOutcome out = s.take_outcome();
    EXPECT_TRUE(out.ok) << out.sqlstate << " " << out.message;
    return out;
  }
  // After cancel(): the server acts on a cancel request when it next checks
  // for interrupts, so the statement may still show as blocked for a while
  // (as PgRun::cancel_lock_wait, wait again until it returns; bounded).
  Progress returned_after_cancel(Session& s) {
    Progress p = s.wait_until_done_or_blocked(*probe_, pids_);
    for (int i = 0; i < 1000 && p == Progress::blocked; ++i) p = s.wait_until_done_or_blocked(*probe_, pids_);
    return p;
  }
  std::unique_ptr<LockProbe> probe_;
  std::unique_ptr<Session> a_;
  std::unique_ptr<Session> b_;
  std::vector<int> pids_;
};

TEST_F(Stepping, APushWaitingForTheRowLockIsBlockedThenSettlesAsADuplicate) {
  ASSERT_EQ(push("q", "p", {"seed"})["status"], "queued");  // provisions the partition
  const std::string pid = partition_id("q", "p");
  step(*a_, "BEGIN");
  step(*a_, "SELECT 1 FROM queen.log_partitions WHERE id = $1::uuid FOR UPDATE", {Param::text(pid)});
  const json queued = json::parse(step(*a_, kPush, push_params("p", "k")).value(0, 0));
  ASSERT_EQ(queued["status"], "queued");

  b_->send(kPush, push_params("p", "k"));
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::blocked);
  // Still blocked when asked again: nothing released the lock.
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::blocked);
  EXPECT_TRUE(b_->in_flight());

  step(*a_, "COMMIT");
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::returned);
  const StatementOutcome settled = b_->take_outcome();
  ASSERT_TRUE(settled.ok) << settled.message;
  EXPECT_EQ(interface_part(json::parse(settled.value(0, 0))), json::parse(R"({"status":"duplicate","dups":[{"i":0,"off":1}]})"));
}

TEST_F(Stepping, ABlockedPushStampsTheTimeTheLockWasGranted) {
  ASSERT_EQ(push("q", "p", {"seed"})["status"], "queued");
  step(*a_, "BEGIN");
  ASSERT_EQ(json::parse(step(*a_, kPush, push_params("p", "x")).value(0, 0))["status"], "queued");
  b_->send(kPush, push_params("p", "y"));
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::blocked);
  set_clock_us(kT0Us + 300 * kSecondUs);
  step(*a_, "COMMIT");
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::returned);
  const json answer = json::parse(b_->take_outcome().value(0, 0));
  EXPECT_EQ(answer["baseOffset"], 2);
  EXPECT_EQ(answer["createdAt"], "2023-11-14T22:18:20.000000Z");
}

TEST_F(Stepping, PushesToDifferentPartitionsDoNotBlockEachOther) {
  ASSERT_EQ(push("q", "p1", {"seed"})["status"], "queued");
  ASSERT_EQ(push("q", "p2", {"seed"})["status"], "queued");
  step(*a_, "BEGIN");
  ASSERT_EQ(json::parse(step(*a_, kPush, push_params("p1", "k")).value(0, 0))["status"], "queued");
  b_->send(kPush, push_params("p2", "k"));
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::returned);
  EXPECT_EQ(json::parse(b_->take_outcome().value(0, 0))["status"], "queued");
  step(*a_, "COMMIT");
}

// The partition's turn (docs/semantics.md §9.3): the adapter's statements
// compute the key the SQL's qdt_partition_turn takes, and waiters are
// granted in the order they asked, a writer at a time.
TEST_F(Stepping, ThePartitionsTurnIsGrantedInTheOrderAsked) {
  ASSERT_EQ(push("q", "p", {"seed"})["status"], "queued");
  Session c(cluster().base_conninfo(), database(), "c");
  const std::vector<int> pids{a_->backend_pid(), b_->backend_pid(), c.backend_pid()};
  step(*a_, "BEGIN");
  step(*a_, "SELECT queen.qdt_partition_turn($1::uuid)", {Param::text(partition_id("q", "p"))});
  step(*b_, "BEGIN");
  b_->send(sql::kFindPartitionLocked, {Param::text("q"), Param::text("p")});
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids), Progress::blocked);
  c.send(kPush, push_params("p", "k"));
  ASSERT_EQ(c.wait_until_done_or_blocked(*probe_, pids), Progress::blocked);
  step(*a_, "COMMIT");
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids), Progress::returned);
  EXPECT_EQ(b_->take_outcome().rows.size(), 1u);
  // The push asked after the ack-like writer: it waits for that one's end.
  ASSERT_EQ(c.wait_until_done_or_blocked(*probe_, pids), Progress::blocked);
  step(*b_, "COMMIT");
  ASSERT_EQ(c.wait_until_done_or_blocked(*probe_, pids), Progress::returned);
  EXPECT_EQ(json::parse(c.take_outcome().value(0, 0))["baseOffset"], 1);
}

TEST_F(Stepping, AReadTakesThePartitionsTurnSharedBesideOtherReads) {
  ASSERT_EQ(push("q", "p", {"seed"})["status"], "queued");
  step(*a_, "BEGIN");
  ASSERT_EQ(step(*a_, sql::kFindPartitionShared, {Param::text("q"), Param::text("p")}).rows.size(), 1u);
  step(*b_, "BEGIN");
  ASSERT_EQ(step(*b_, sql::kFindPartitionShared, {Param::text("q"), Param::text("p")}).rows.size(), 1u);
  step(*b_, "COMMIT");
  b_->send(kPush, push_params("p", "k"));
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::blocked);
  step(*a_, "COMMIT");
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::returned);
  EXPECT_EQ(json::parse(b_->take_outcome().value(0, 0))["status"], "queued");
}

TEST_F(Stepping, ACancelledBlockedStatementReturnsSqlstate57014) {
  ASSERT_EQ(push("q", "p", {"seed"})["status"], "queued");
  step(*a_, "BEGIN");
  step(*a_, kPush, push_params("p", "k"));
  b_->send(kPush, push_params("p", "k"));
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::blocked);
  b_->cancel();
  ASSERT_EQ(returned_after_cancel(*b_), Progress::returned);
  const StatementOutcome cancelled = b_->take_outcome();
  EXPECT_FALSE(cancelled.ok);
  EXPECT_EQ(cancelled.sqlstate, "57014");
  EXPECT_EQ(storage_error(cancelled, "b").code(), 5);
  EXPECT_FALSE(storage_error(cancelled, "b").deadlock());  // a cancel is no deadlock
  step(*a_, "ROLLBACK");
}

TEST_F(Stepping, AnErrorCarriesTheSqlstateAndTheQpushPrefix) {
  b_->send(kPush, {Param::text("q"), Param::text("p"), Param::text("2"), Param::bytes(hashes({"a"})),
                   Param::bytes("frames")});
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::returned);
  const StatementOutcome failed = b_->take_outcome();
  EXPECT_FALSE(failed.ok);
  EXPECT_EQ(failed.sqlstate, "P0001");
  EXPECT_EQ(failed.message.rfind("QPUSH", 0), 0u) << failed.message;
}

TEST_F(Stepping, AStatementSentAgainRunsPreparedAndAnUnparsableOneStillReportsItsError) {
  ASSERT_EQ(push("q", "p", {"seed"})["status"], "queued");
  const std::string count = "SELECT count(*) FROM queen.log_txns WHERE partition_id = $1::uuid";
  const std::string pid = partition_id("q", "p");
  EXPECT_EQ(step(*a_, count, {Param::text(pid)}).value(0, 0), "1");
  step(*a_, "DELETE FROM queen.log_txns");
  EXPECT_EQ(step(*a_, count, {Param::text(pid)}).value(0, 0), "0");  // the prepared plan reads today's rows
  EXPECT_EQ(step(*a_, "SELECT count(*) FROM pg_prepared_statements").value(0, 0), "1");

  a_->send("SELECT * FROM no_such_table WHERE x = $1", {Param::text("1")});
  ASSERT_EQ(a_->wait_until_done_or_blocked(*probe_, pids_), Progress::returned);
  const StatementOutcome failed = a_->take_outcome();
  EXPECT_FALSE(failed.ok);
  EXPECT_EQ(failed.sqlstate, "42P01");
}

// Parsing waits for a table lock like any statement, so a statement is
// prepared only while no other client is in a transaction; sent unprepared,
// it is stepped: blocked behind the holder, then done once it commits.
TEST_F(Stepping, AStatementNotPreparedBesideALockHolderIsSteppedAndPreparedLater) {
  const std::string count = "SELECT count(*) FROM queen.log_txns WHERE partition_id = $1::uuid";
  const std::vector<Param> params{Param::text("00000000-0000-0000-0000-000000000000")};
  step(*b_, "BEGIN");
  step(*b_, "LOCK TABLE queen.log_txns IN ACCESS EXCLUSIVE MODE");
  a_->send(count, params, /*may_prepare=*/false);
  EXPECT_EQ(a_->wait_until_done_or_blocked(*probe_, pids_), Progress::blocked);
  step(*b_, "COMMIT");
  ASSERT_EQ(a_->wait_until_done_or_blocked(*probe_, pids_), Progress::returned);
  EXPECT_EQ(a_->take_outcome().value(0, 0), "0");
  EXPECT_EQ(step(*a_, "SELECT count(*) FROM pg_prepared_statements").value(0, 0), "0");
  step(*a_, count, params);  // nobody else in a transaction now
  EXPECT_EQ(step(*a_, "SELECT count(*) FROM pg_prepared_statements").value(0, 0), "1");
  a_->send(count, params, /*may_prepare=*/false);  // prepared before: runs prepared
  ASSERT_EQ(a_->wait_until_done_or_blocked(*probe_, pids_), Progress::returned);
  EXPECT_TRUE(a_->take_outcome().ok);
}

TEST_F(Stepping, TwoBundlesOverTheSamePartitionsInOppositeOrdersDoNotDeadlock) {
  ASSERT_EQ(push("q", "p1", {"seed"})["status"], "queued");
  ASSERT_EQ(push("q", "p2", {"seed"})["status"], "queued");
  const std::string multi =
      "SELECT queen.log_push_multi_v1(ARRAY['q','q'], ARRAY[$1,$2], ARRAY[1,1], ARRAY[$3::bytea,$3::bytea], "
      "ARRAY[-1,-1]::int8[], ARRAY['\\x00'::bytea,'\\x00'::bytea])";
  step(*a_, "BEGIN");
  step(*a_, multi, {Param::text("p1"), Param::text("p2"), Param::bytes(hashes({"k"}))});
  // B names the partitions the other way round; it locks in ascending id all the same.
  b_->send(multi, {Param::text("p2"), Param::text("p1"), Param::bytes(hashes({"k"}))});
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::blocked);
  step(*a_, "COMMIT");
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::returned);
  const StatementOutcome settled = b_->take_outcome();
  ASSERT_TRUE(settled.ok) << settled.message;
  const json answers = json::parse(settled.value(0, 0));
  EXPECT_EQ(answers[0]["status"], "duplicate");
  EXPECT_EQ(answers[1]["status"], "duplicate");
}

// One commit granting two bundles a turn each must not leave them racing
// for a third: a bundle waiting for a turn holds the line, and a second
// bundle waits for the line, not for a turn.
TEST_F(Stepping, ASecondBundleWaitsForTheLineWhileTheFirstWaitsForATurn) {
  for (const char* p : {"p1", "p2", "p3"}) ASSERT_EQ(push("q", p, {"seed"})["status"], "queued");
  Session c(cluster().base_conninfo(), database(), "c");
  pids_.push_back(c.backend_pid());
  const std::string multi =
      "SELECT queen.log_push_multi_v1(ARRAY['q','q'], ARRAY[$1,$2], ARRAY[1,1], ARRAY[$3::bytea,$3::bytea], "
      "ARRAY[-1,-1]::int8[], ARRAY['\\x00'::bytea,'\\x00'::bytea])";
  const std::string waits_for_line =
      "SELECT count(*) FROM pg_locks WHERE pid = $1::int AND NOT granted AND locktype = 'advisory' "
      "AND ((classid::bigint << 32) | objid::bigint) = " QDT_PG_LINE_KEY;
  step(*a_, "BEGIN");
  for (const char* p : {"p1", "p2"}) {
    step(*a_, "SELECT queen.qdt_partition_turn($1::uuid)", {Param::text(partition_id("q", p))});
  }
  step(*b_, "BEGIN");
  b_->send(multi, {Param::text("p1"), Param::text("p3"), Param::bytes(hashes({"k"}))});
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::blocked);
  c.send(multi, {Param::text("p2"), Param::text("p3"), Param::bytes(hashes({"k"}))});
  ASSERT_EQ(c.wait_until_done_or_blocked(*probe_, pids_), Progress::blocked);
  EXPECT_EQ(step(*a_, waits_for_line, {Param::text(std::to_string(c.backend_pid()))}).value(0, 0), "1");
  EXPECT_EQ(step(*a_, waits_for_line, {Param::text(std::to_string(b_->backend_pid()))}).value(0, 0), "0");

  // The commit grants b its turn; c then enters the line and waits for b's p3.
  step(*a_, "COMMIT");
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::returned);
  ASSERT_TRUE(b_->take_outcome().ok);
  ASSERT_EQ(c.wait_until_done_or_blocked(*probe_, pids_), Progress::blocked);
  EXPECT_EQ(step(*a_, "SELECT pg_blocking_pids($1::int) = ARRAY[$2::int]",
                 {Param::text(std::to_string(c.backend_pid())), Param::text(std::to_string(b_->backend_pid()))})
                .value(0, 0),
            "t");
  step(*b_, "COMMIT");
  ASSERT_EQ(c.wait_until_done_or_blocked(*probe_, pids_), Progress::returned);
  const StatementOutcome settled = c.take_outcome();
  ASSERT_TRUE(settled.ok) << settled.message;
  EXPECT_EQ(json::parse(settled.value(0, 0))[1]["status"], "duplicate");  // b pushed k to p3 first
  // Every bundle left the line: a session-level lock outlives its statement.
  EXPECT_EQ(step(*a_, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'").value(0, 0), "0");
}

TEST_F(Stepping, AWaitCycleIsTwoBlockedSessionsUntilOneIsCancelled) {
  ASSERT_EQ(push("q", "p1", {"seed"})["status"], "queued");
  ASSERT_EQ(push("q", "p2", {"seed"})["status"], "queued");
  const std::string p1 = partition_id("q", "p1");
  const std::string p2 = partition_id("q", "p2");
  const std::string lock = "SELECT 1 FROM queen.log_partitions WHERE id = $1::uuid FOR UPDATE";
  step(*a_, "BEGIN");
  step(*b_, "BEGIN");
  step(*a_, lock, {Param::text(p1)});
  step(*b_, lock, {Param::text(p2)});
  a_->send(lock, {Param::text(p2)});
  ASSERT_EQ(a_->wait_until_done_or_blocked(*probe_, pids_), Progress::blocked);
  b_->send(lock, {Param::text(p1)});
  // The server's own detector waits an hour: the cycle stays for qdt to break.
  ASSERT_EQ(b_->wait_until_done_or_blocked(*probe_, pids_), Progress::blocked);
  ASSERT_EQ(a_->wait_until_done_or_blocked(*probe_, pids_), Progress::blocked);
  b_->cancel();
  ASSERT_EQ(returned_after_cancel(*b_), Progress::returned);
  EXPECT_EQ(b_->take_outcome().sqlstate, "57014");
  step(*b_, "ROLLBACK");
  ASSERT_EQ(a_->wait_until_done_or_blocked(*probe_, pids_), Progress::returned);
  EXPECT_TRUE(a_->take_outcome().ok);
  step(*a_, "COMMIT");
}

// A statement that neither returns nor waits for a lock within the bound is
// a hang; cancelled, it returns with SQLSTATE 57014.
void expect_a_hang_is_an_error(Session& session, LockProbe& probe, const std::vector<int>& pids) {
  session.send("SELECT pg_sleep(30)");
  WaitOptions short_bound;
  short_bound.hang_ms = 100;
  EXPECT_THROW(session.wait_until_done_or_blocked(probe, pids, short_bound), StorageError);
  session.cancel();
  EXPECT_EQ(session.wait_until_done_or_blocked(probe, pids), Progress::returned);
  EXPECT_EQ(session.take_outcome().sqlstate, "57014");
}

TEST_F(Stepping, ASlowStatementIsNeverBlockedAndAHangIsAnError) {
  // Slower than every lock probe interval, and blocked by nobody.
  a_->send("SELECT pg_sleep(0.05)");
  EXPECT_EQ(a_->wait_until_done_or_blocked(*probe_, pids_), Progress::returned);
  EXPECT_TRUE(a_->take_outcome().ok);
  EXPECT_GT(probe_->checks(), 3u);
  expect_a_hang_is_an_error(*a_, *probe_, pids_);
}

TEST_F(Stepping, ASessionAloneInTheRunIsNeverProbedAndAHangIsStillAnError) {
  const std::vector<int> alone = {a_->backend_pid()};
  a_->send("SELECT pg_sleep(0.05)");
  EXPECT_EQ(a_->wait_until_done_or_blocked(*probe_, alone), Progress::returned);
  EXPECT_TRUE(a_->take_outcome().ok);
  EXPECT_EQ(probe_->checks(), 0u);
  expect_a_hang_is_an_error(*a_, *probe_, alone);
  EXPECT_EQ(probe_->checks(), 0u);
}

// PgRun's later first probe while the other sessions are idle outside a
// transaction: a session-level lock one of them holds still blocks.
TEST_F(Stepping, ALockHeldOutsideATransactionIsSeenWithTheLaterFirstProbe) {
  step(*b_, "SELECT pg_advisory_lock(42)");
  WaitOptions others_idle;
  others_idle.first_check_us = others_idle.first_check_us_others_idle;
  a_->send("SELECT pg_advisory_lock(42)");
  ASSERT_EQ(a_->wait_until_done_or_blocked(*probe_, pids_, others_idle), Progress::blocked);
  step(*b_, "SELECT pg_advisory_unlock(42)");
  ASSERT_EQ(a_->wait_until_done_or_blocked(*probe_, pids_, others_idle), Progress::returned);
  EXPECT_TRUE(a_->take_outcome().ok);
  step(*a_, "SELECT pg_advisory_unlock(42)");
}

// PostgreSQL's own detector's victim is a deadlock, as the breaker's is.
TEST(StorageErrorOf, Sqlstate40P01IsADeadlock) {
  StatementOutcome out;
  out.sqlstate = "40P01";
  out.message = "deadlock detected";
  EXPECT_TRUE(storage_error(out, "a").deadlock());
  EXPECT_EQ(storage_error(out, "a").code(), 5);
  out.sqlstate = "40001";
  EXPECT_FALSE(storage_error(out, "a").deadlock());
}

TEST(DecodeBytea, ReadsTheHexFormat) {
  EXPECT_EQ(decode_bytea("\\x00ff41"), std::string("\x00\xff" "A", 3));
  EXPECT_THROW(decode_bytea("00ff"), StorageError);
}

}  // namespace
}  // namespace qdt::impl::postgres::testing
