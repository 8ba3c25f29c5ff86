// Faults done to the real server (impl::ServerBackend, docs/semantics.md §8):
// a statement cancelled in its lock wait, or a backend ended before a
// statement. PostgreSQL rolls back for real, the client that held the lock
// or waited for it goes on, the connection is reopened for the next
// transaction, and every repetition gives the same answers.
#include <gtest/gtest.h>

#include <boost/fiber/all.hpp>
#include <memory>
#include <string>

#include "impl/storage/postgres/cluster.h"
#include "impl/storage/postgres/pg_connection.h"
#include "impl/storage/postgres/pg_storage_test_env.h"

namespace qdt::impl::postgres::testing {
namespace {

// Yields before every statement and while a lock is awaited, so two
// clients interleave statement by statement; a planned fault is done to
// the backend: terminate before statement `terminate_at`, or cancel the
// first lock wait.
class FaultGate : public StatementGate {
 public:
  int64_t terminate_at = -1;
  bool cancel_wait = false;
  int before_server_statement(TxnKind, int64_t index, StatementKind, ServerBackend& backend) override {
    boost::this_fiber::yield();
    if (index == terminate_at) {
      terminate_at = -1;
      backend.terminate();
      ++faults;
    }
    return 0;
  }
  bool wait_busy_on_server(TxnKind, uint32_t attempt, ServerBackend& backend) override {
    ++waits;
    if (cancel_wait) {
      cancel_wait = false;
      backend.cancel_lock_wait();
      ++faults;
      return true;
    }
    boost::this_fiber::yield();
    return attempt < 1'000'000;
  }
  void on_ended(TxnKind, bool committed) override { ++(committed ? commits : rollbacks); }
  uint64_t faults = 0;
  uint64_t waits = 0;
  uint64_t commits = 0;
  uint64_t rollbacks = 0;
};

std::string describe(const PushResult& r) {
  return r.queued ? "queued@" + std::to_string(r.base_offset)
                  : "duplicate of " + std::to_string(r.duplicates.at(0).second);
}

std::string attempt(PgStorage& storage, const SegmentPush& segment) {
  try {
    return describe(storage.push(segment));
  } catch (const StorageError& e) {
    return std::string(e.connection_lost() ? "lost " : "error ") + std::to_string(e.code()) + ": " + e.what();
  }
}

struct Race {
  std::string a;  // takes the partition's lock first
  std::string b;  // waits for it
  std::string b_again;  // b's next push, on its reopened connection if it was closed
  int64_t stored = 0;   // read by a client that took no part
  std::vector<std::string> keys;
  uint64_t faults = 0;
  uint64_t waits_b = 0;
};

// a and b push to one partition; `arm` plans the fault on a's or b's gate.
Race race(void (*arm)(FaultGate& a, FaultGate& b)) {
  ManualClock clock(kT0Ms);
  auto run = backend().begin_run();
  FaultGate gate_a, gate_b;
  auto a = backend().connect(*run, "a", clock, &gate_a, {});
  auto b = backend().connect(*run, "b", clock, &gate_b, {});
  a->push(segment({"seed"}));  // provisions the partition outside the race
  arm(gate_a, gate_b);
  Race out;
  boost::fibers::fiber fa([&] { out.a = attempt(*a, segment({"ka"})); });
  boost::fibers::fiber fb([&] { out.b = attempt(*b, segment({"kb"})); });
  fa.join();
  fb.join();
  out.b_again = attempt(*b, segment({"kb2"}));
  auto inspector = backend().connect(*run, "inspector", clock, nullptr, {});
  out.stored = inspector->stored_messages("q", "p");
  for (const StoredMessage& m : inspector->inspect_messages("q", "p")) out.keys.push_back(m.transaction_id);
  out.faults = gate_a.faults + gate_b.faults;
  out.waits_b = gate_b.waits;
  return out;
}

void cancel_b(FaultGate&, FaultGate& b) { b.cancel_wait = true; }
void terminate_a_before_commit(FaultGate& a, FaultGate&) { a.terminate_at = 2; }
void terminate_b_before_begin(FaultGate&, FaultGate& b) { b.terminate_at = 0; }

TEST(PgFaults, ACancelledLockWaitRollsBackAndTheHolderCommits) {
  const Race r = race(cancel_b);
  EXPECT_EQ(r.a, "queued@1");
  EXPECT_EQ(r.faults, 1u);
  EXPECT_EQ(r.waits_b, 1u);
  // The server's own cancel, failed as a lock conflict (SQLITE_BUSY).
  EXPECT_NE(r.b.find("error 5: "), std::string::npos) << r.b;
  EXPECT_NE(r.b.find("SQLSTATE 57014"), std::string::npos) << r.b;
  EXPECT_EQ(r.b_again, "queued@2");
  EXPECT_EQ(r.keys, (std::vector<std::string>{"seed", "ka", "kb2"}));
}

TEST(PgFaults, ABackendEndedBeforeCommitRollsBackAndTheWaiterGoesOn) {
  const Race r = race(terminate_a_before_commit);
  EXPECT_EQ(r.faults, 1u);
  // a's COMMIT found the connection closed: a known failure, not a lost one.
  EXPECT_NE(r.a.find("error 10: "), std::string::npos) << r.a;
  EXPECT_NE(r.a.find("closed by the server"), std::string::npos) << r.a;
  // b waited for a's row lock; the server released it with a's backend.
  EXPECT_GT(r.waits_b, 0u);
  EXPECT_EQ(r.b, "queued@1");
  EXPECT_EQ(r.b_again, "queued@2");
  // A client that took no part reads no trace of ka.
  EXPECT_EQ(r.stored, 3);
  EXPECT_EQ(r.keys, (std::vector<std::string>{"seed", "kb", "kb2"}));
}

TEST(PgFaults, ABackendEndedBeforeBeginFailsThatTransactionOnlyAndIsReopened) {
  const Race r = race(terminate_b_before_begin);
  EXPECT_EQ(r.a, "queued@1");
  EXPECT_NE(r.b.find("error 10: "), std::string::npos) << r.b;
  EXPECT_EQ(r.b_again, "queued@2");
  EXPECT_EQ(r.keys, (std::vector<std::string>{"seed", "ka", "kb2"}));
}

TEST(PgFaults, TheSameFaultGivesTheSameAnswersOverFiveRepetitions) {
  for (auto* arm : {cancel_b, terminate_a_before_commit, terminate_b_before_begin}) {
    const Race first = race(arm);
    for (int i = 0; i < 5; ++i) {
      const Race again = race(arm);
      EXPECT_EQ(again.a, first.a) << "repetition " << i;
      EXPECT_EQ(again.b, first.b) << "repetition " << i;
      EXPECT_EQ(again.b_again, first.b_again) << "repetition " << i;
      EXPECT_EQ(again.keys, first.keys) << "repetition " << i;
      EXPECT_EQ(again.waits_b, first.waits_b) << "repetition " << i;
    }
  }
}

// Someone else (a DBA, a failover) ends b's backend while b waits for a's
// lock, and a's commit is the first to read b's connection: b's next wait is
// the engine's error (connection lost), never an assertion.
class OutsiderGate : public FaultGate {
 public:
  bool wait_busy_on_server(TxnKind kind, uint32_t attempt, ServerBackend& backend) override {
    if (attempt == 1) {
      PgConnPtr dba = postgres::testing::backend().cluster().connect("postgres");
      PgResultPtr r(PQexec(dba.get(),
                           "SELECT pg_catalog.pg_terminate_backend(pid) FROM pg_catalog.pg_stat_activity "
                           "WHERE wait_event_type = 'Lock'"));
      ended = r && PQresultStatus(r.get()) == PGRES_TUPLES_OK && PQntuples(r.get()) == 1;
      // Let a run to its commit, which settles b's ended connection.
      for (int i = 0; i < 50; ++i) boost::this_fiber::yield();
    }
    return FaultGate::wait_busy_on_server(kind, attempt, backend);
  }
  bool ended = false;
};

TEST(PgFaults, ABackendEndedByAnOutsiderWhileItWaitsIsAConnectionLost) {
  ManualClock clock(kT0Ms);
  auto run = backend().begin_run();
  FaultGate gate_a;
  OutsiderGate gate_b;
  auto a = backend().connect(*run, "a", clock, &gate_a, {});
  auto b = backend().connect(*run, "b", clock, &gate_b, {});
  a->push(segment({"seed"}));
  std::string out_a, out_b;
  boost::fibers::fiber fa([&] { out_a = attempt(*a, segment({"ka"})); });
  boost::fibers::fiber fb([&] { out_b = attempt(*b, segment({"kb"})); });
  fa.join();
  fb.join();
  ASSERT_TRUE(gate_b.ended);
  EXPECT_EQ(out_b.rfind("lost ", 0), 0u) << out_b;
  EXPECT_TRUE(out_a == "queued@1" || out_a.rfind("lost ", 0) == 0) << out_a;
}

// The connection's backend changes with the reopening; its client name does not.
TEST(PgFaults, AClosedConnectionIsReopenedUnderItsNameForReads) {
  ManualClock clock(kT0Ms);
  auto run = backend().begin_run();
  FaultGate gate;
  auto a = backend().connect(*run, "a", clock, &gate, {});
  a->push(segment({"seed"}));
  gate.terminate_at = 1;
  EXPECT_NE(attempt(*a, segment({"k"})).find("error 10: "), std::string::npos);
  EXPECT_FALSE(a->in_transaction());
  EXPECT_EQ(a->client_name(), "a");
  EXPECT_EQ(a->stored_messages("q", "p"), 1);  // an ungated read reopens too
  EXPECT_EQ(attempt(*a, segment({"k"})), "queued@1");
}

}  // namespace
}  // namespace qdt::impl::postgres::testing
