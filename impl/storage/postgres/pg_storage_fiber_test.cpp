// Concurrency on PostgreSQL under fibers (docs/semantics.md §9.2): a gate
// that yields before every statement and while a lock is awaited, so two
// clients' transactions interleave statement by statement. Lock waits end
// when the holder commits, different partitions never wait, a wait cycle is
// broken by cancelling the client that waited last, and all of it is the
// same on every repetition.
#include <gtest/gtest.h>

#include <boost/fiber/all.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "impl/storage/postgres/pg_sql.h"
#include "impl/storage/postgres/pg_storage_test_env.h"
#include "impl/storage/postgres/pg_transaction.h"

namespace qdt::impl::postgres::testing {
namespace {

class YieldGate : public StatementGate {
 public:
  int before_statement(TxnKind, int64_t, StatementKind) override {
    boost::this_fiber::yield();
    return 0;
  }
  bool wait_busy(TxnKind, uint32_t attempt) override {
    ++waits;
    boost::this_fiber::yield();
    return attempt < max_attempts;
  }
  uint32_t max_attempts = 1'000'000;
  void on_locked(TxnKind) override { ++locked; }
  void on_ended(TxnKind, bool committed) override { ++(committed ? commits : rollbacks); }
  uint64_t waits = 0;
  uint64_t locked = 0;
  uint64_t commits = 0;
  uint64_t rollbacks = 0;
};

std::string describe(const PushResult& r) {
  return r.queued ? "queued@" + std::to_string(r.base_offset)
                  : "duplicate of " + std::to_string(r.duplicates.at(0).second);
}

struct TwoPushes {
  std::string a;
  std::string b;
  uint64_t waits_a = 0;
  uint64_t waits_b = 0;
};

TwoPushes two_pushes(const std::string& partition_a, const std::string& partition_b) {
  ManualClock clock(kT0Ms);
  auto run = backend().begin_run();
  YieldGate gate_a, gate_b;
  auto a = backend().connect(*run, "a", clock, &gate_a, {});
  auto b = backend().connect(*run, "b", clock, &gate_b, {});
  a->push(segment({"seed"}, "q", partition_a));  // provisions both partitions outside the race
  a->push(segment({"seed"}, "q", partition_b));
  TwoPushes out;
  boost::fibers::fiber fa([&] { out.a = describe(a->push(segment({"k"}, "q", partition_a))); });
  boost::fibers::fiber fb([&] { out.b = describe(b->push(segment({"k"}, "q", partition_b))); });
  fa.join();
  fb.join();
  out.waits_a = gate_a.waits;
  out.waits_b = gate_b.waits;
  return out;
}

TEST(PgStorageFibers, ASecondPushOfTheSameKeyWaitsForTheFirstThenAnswersDuplicate) {
  const TwoPushes r = two_pushes("p", "p");
  EXPECT_EQ(r.a, "queued@1");
  EXPECT_EQ(r.b, "duplicate of 1");
  EXPECT_EQ(r.waits_a, 0u);
  EXPECT_GT(r.waits_b, 0u);  // b's push call blocked on the row a held
}

TEST(PgStorageFibers, PushesToDifferentPartitionsNeverWait) {
  const TwoPushes r = two_pushes("p1", "p2");
  EXPECT_EQ(r.a, "queued@1");
  EXPECT_EQ(r.b, "queued@1");
  EXPECT_EQ(r.waits_a + r.waits_b, 0u);
}

constexpr const char* kLockByName =
    "SELECT 1 FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id "
    "WHERE q.name = 'q' AND p.name = $1 FOR UPDATE OF p";

struct CycleOutcome {
  std::string a;
  std::string b;
  std::vector<PgDeadlock> deadlocks;
};

// Two transactions lock two partition rows in opposite orders.
CycleOutcome wait_cycle() {
  ManualClock clock(kT0Ms);
  auto run = backend().begin_run();
  {
    auto admin = backend().connect(*run, "admin", clock, nullptr, {});
    admin->push(segment({"seed"}, "q", "p1"));
    admin->push(segment({"seed"}, "q", "p2"));
  }
  YieldGate gate_a, gate_b;
  Session sa(run->base_conninfo(), run->database(), "a");
  Session sb(run->base_conninfo(), run->database(), "b");
  run->attach(sa);
  run->attach(sb);
  CycleOutcome out;
  auto body = [&](Session& s, StatementGate& gate, const std::string& first, const std::string& second,
                  std::string& answer) {
    try {
      PgTransaction tx(*run, s, gate, clock, TxnKind::push);
      tx.run(kLockByName, {Param::text(first)}, StatementKind::read, true);
      tx.run(kLockByName, {Param::text(second)}, StatementKind::read, true);
      tx.commit();
      answer = "committed";
    } catch (const StorageError& e) {
      answer = e.deadlock() ? "deadlock" : std::string("error: ") + e.what();
    }
  };
  boost::fibers::fiber fa([&] { body(sa, gate_a, "p1", "p2", out.a); });
  boost::fibers::fiber fb([&] { body(sb, gate_b, "p2", "p1", out.b); });
  fa.join();
  fb.join();
  run->detach(sa);
  run->detach(sb);
  out.deadlocks = run->deadlocks();
  return out;
}

TEST(PgStorageFibers, AWaitCycleIsBrokenByCancellingTheClientThatWaitedLast) {
  const CycleOutcome r = wait_cycle();
  EXPECT_EQ(r.a, "committed");
  EXPECT_EQ(r.b, "deadlock");
  ASSERT_EQ(r.deadlocks.size(), 1u);
  EXPECT_EQ(r.deadlocks[0].cancelled, "b");
  EXPECT_EQ(r.deadlocks[0].cycle, (std::vector<std::string>{"b", "a"}));
}

// A wait cycle can close when a waiting statement is granted its lock and
// waits again for another: c waits for a's p1, b for c's p3; a commits, c
// takes p1 and waits for b's p2. The run sees c block anew then, finds the
// cycle, and cancels c, which started waiting last (at its second wait).
TEST(PgStorageFibers, ACycleThatClosesWhenAWaiterWaitsAgainIsBroken) {
  ManualClock clock(kT0Ms);
  auto run = backend().begin_run();
  {
    auto admin = backend().connect(*run, "admin", clock, nullptr, {});
    for (const char* p : {"p1", "p2", "p3"}) admin->push(segment({"seed"}, "q", p));
  }
  YieldGate gate_a, gate_b, gate_c;
  // Without the cycle found, b and c give up their waits instead of waiting forever.
  gate_b.max_attempts = gate_c.max_attempts = 300;
  Session sa(run->base_conninfo(), run->database(), "a");
  Session sb(run->base_conninfo(), run->database(), "b");
  Session sc(run->base_conninfo(), run->database(), "c");
  for (Session* s : {&sa, &sb, &sc}) run->attach(*s);
  bool a_locked = false, b_locked = false;
  std::string a, b, c;
  auto until = [](const auto& condition) {
    for (int i = 0; i < 100'000 && !condition(); ++i) boost::this_fiber::yield();
    ASSERT_TRUE(condition());
  };
  auto outcome = [](const auto& body) -> std::string {
    try {
      body();
      return "committed";
    } catch (const StorageError& e) {
      return e.deadlock() ? "deadlock" : std::string("error: ") + e.what();
    }
  };
  const std::string lock_p1_then_p2 =
      "SELECT 1 FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id "
      "WHERE q.name = 'q' AND p.name IN ($1, $2) ORDER BY p.name FOR UPDATE OF p";
  boost::fibers::fiber fa([&] {
    a = outcome([&] {
      PgTransaction tx(*run, sa, gate_a, clock, TxnKind::push);
      tx.run(kLockByName, {Param::text("p1")}, StatementKind::read, true);
      a_locked = true;
      until([&] { return gate_b.waits > 0; });
      tx.commit();
    });
  });
  boost::fibers::fiber fb([&] {
    b = outcome([&] {
      until([&] { return a_locked; });
      PgTransaction tx(*run, sb, gate_b, clock, TxnKind::push);
      tx.run(kLockByName, {Param::text("p2")}, StatementKind::read, true);
      b_locked = true;
      until([&] { return gate_c.waits > 0; });
      tx.run(kLockByName, {Param::text("p3")}, StatementKind::read, true);
      tx.commit();
    });
  });
  boost::fibers::fiber fc([&] {
    c = outcome([&] {
      until([&] { return b_locked; });
      PgTransaction tx(*run, sc, gate_c, clock, TxnKind::push);
      tx.run(kLockByName, {Param::text("p3")}, StatementKind::read, true);
      tx.run(lock_p1_then_p2, {Param::text("p1"), Param::text("p2")}, StatementKind::read, true);
      tx.commit();
    });
  });
  fa.join();
  fb.join();
  fc.join();
  for (Session* s : {&sa, &sb, &sc}) run->detach(*s);
  EXPECT_EQ(a, "committed");
  EXPECT_EQ(b, "committed");
  EXPECT_EQ(c, "deadlock");
  ASSERT_EQ(run->deadlocks().size(), 1u);
  EXPECT_EQ(run->deadlocks()[0].cancelled, "c");
  EXPECT_EQ(run->deadlocks()[0].cycle, (std::vector<std::string>{"c", "b"}));
}

// A BEGIN carries its time in its text, and under qdt's own SQL only a push
// reads the clock table: the run writes the clock with the next push, which
// reads it as if every write had come first.
TEST(PgStorageFibers, TheClockIsWrittenForTheNextPushWithTheLatestTime) {
  ManualClock clock(kT0Ms);
  auto run = backend().begin_run();
  auto a = backend().connect(*run, "a", clock, nullptr, {});
  EXPECT_EQ(a->push(segment({"k1"})).now_ms, kT0Ms);
  EXPECT_EQ(run->clock_ms(), kT0Ms);
  clock.set(kT0Ms + 7);
  EXPECT_EQ(a->sidecar_rows(), 1);
  EXPECT_EQ(run->clock_ms(), kT0Ms);
  const PushResult second = a->push(segment({"k2"}));
  EXPECT_EQ(second.now_ms, kT0Ms + 7);
  EXPECT_EQ(run->clock_ms(), kT0Ms + 7);
}

// A push waiting for a lock reads the clock when it is granted, at the
// holder's COMMIT: the run writes the clock before every statement while
// another statement is in flight.
TEST(PgStorageFibers, APushGrantedAtTheHoldersCommitReadsTheTimeOfThatCommit) {
  ManualClock clock(kT0Ms);
  auto run = backend().begin_run();
  {
    auto admin = backend().connect(*run, "admin", clock, nullptr, {});
    admin->push(segment({"seed"}, "q", "p"));
  }
  YieldGate gate_a, gate_b;
  Session sa(run->base_conninfo(), run->database(), "a");
  run->attach(sa);
  auto b = backend().connect(*run, "b", clock, &gate_b, {});
  PushResult pushed;
  boost::fibers::fiber fa([&] {
    PgTransaction tx(*run, sa, gate_a, clock, TxnKind::push);
    tx.run(kLockByName, {Param::text("p")}, StatementKind::read, true);
    for (int i = 0; i < 1000 && gate_b.waits == 0; ++i) boost::this_fiber::yield();
    clock.set(kT0Ms + 9);
    tx.commit();
  });
  boost::fibers::fiber fb([&] { pushed = b->push(segment({"k"}, "q", "p")); });
  fa.join();
  fb.join();
  EXPECT_GT(gate_b.waits, 0u);
  EXPECT_EQ(pushed.now_ms, kT0Ms + 9);
  run->detach(sa);
}

// A statement releasing a session-level lock (the line) before it returns
// grants it to a waiter at once: the waiter's statement has returned, or
// waits again, before the releasing client's transaction goes on.
TEST(PgStorageFibers, AClientGrantedTheLineMidStatementSettlesBeforeTheReleaserGoesOn) {
  ManualClock clock(kT0Ms);
  auto run = backend().begin_run();
  YieldGate gate_a, gate_b;
  Session sa(run->base_conninfo(), run->database(), "a");
  Session sb(run->base_conninfo(), run->database(), "b");
  run->attach(sa);
  run->attach(sb);
  const std::string line = "hashtextextended('qdt-settle-test', 0)";
  // Slow after the grant, so without settling it would still be sleeping.
  const std::string enter_then_lock =
      "SELECT pg_advisory_xact_lock(77) FROM (SELECT pg_sleep(0.3) FROM (SELECT pg_advisory_lock(" + line +
      ") OFFSET 0) l OFFSET 0) s";
  auto holds_77 = [&] {
    const PgConnPtr observer = connect_blocking(run->base_conninfo(), run->database());
    const PgResultPtr r = exec_blocking(observer.get(),
                                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                                        "AND objid = 77 AND pid = " + std::to_string(sb.backend_pid()),
                                        "read the locks");
    return std::string(PQgetvalue(r.get(), 0, 0)) == "1";
  };
  bool held_when_a_went_on = false;
  boost::fibers::fiber fa([&] {
    PgTransaction tx(*run, sa, gate_a, clock, TxnKind::admin);
    tx.run("SELECT pg_advisory_lock(" + line + ")", {}, StatementKind::write);
    for (int i = 0; i < 1000 && gate_b.waits == 0; ++i) boost::this_fiber::yield();
    tx.run("SELECT pg_advisory_unlock(" + line + ")", {}, StatementKind::write, false, /*leaves_line=*/true);
    held_when_a_went_on = holds_77();
    tx.commit();
  });
  boost::fibers::fiber fb([&] {
    PgTransaction tx(*run, sb, gate_b, clock, TxnKind::admin);
    tx.run(enter_then_lock, {}, StatementKind::write);
    tx.run("SELECT pg_advisory_unlock(" + line + ")", {}, StatementKind::write);
    tx.commit();
  });
  fa.join();
  fb.join();
  EXPECT_GT(gate_b.waits, 0u);
  EXPECT_TRUE(held_when_a_went_on);
  run->detach(sa);
  run->detach(sb);
}

// A gate that gives up the first lock wait, as a broker's busy budget does.
class GiveUpGate : public YieldGate {
 public:
  bool wait_busy(TxnKind kind, uint32_t attempt) override {
    YieldGate::wait_busy(kind, attempt);
    return false;
  }
};

// A bundle that fails while it waits for a turn holds the line, a lock that
// outlives transactions: its rollback leaves the line, or every later
// bundle would wait for it forever.
TEST(PgStorageFibers, ABundleThatGivesUpItsWaitLeavesTheLine) {
  ManualClock clock(kT0Ms);
  auto run = backend().begin_run();
  {
    auto admin = backend().connect(*run, "admin", clock, nullptr, {});
    admin->push(segment({"seed"}, "q", "p1"));
    admin->push(segment({"seed"}, "q", "p2"));
  }
  YieldGate gate_a;
  GiveUpGate gate_b;
  Session sa(run->base_conninfo(), run->database(), "a");
  run->attach(sa);
  auto b = backend().connect(*run, "b", clock, &gate_b, {});
  std::string answer;
  boost::fibers::fiber fa([&] {
    PgTransaction tx(*run, sa, gate_a, clock, TxnKind::push);
    tx.run("SELECT queen.qdt_partition_turn(p.id) FROM queen.log_partitions p WHERE p.name = 'p2'", {},
           StatementKind::read, true);
    for (int i = 0; i < 1000 && gate_b.waits == 0; ++i) boost::this_fiber::yield();
    tx.commit();
  });
  boost::fibers::fiber fb([&] {
    try {
      b->push_bundle({segment({"k1"}, "q", "p1"), segment({"k2"}, "q", "p2")});
      answer = "pushed";
    } catch (const StorageError&) {
      answer = "gave up";
    }
  });
  fa.join();
  fb.join();
  EXPECT_EQ(answer, "gave up");
  const PgConnPtr observer = connect_blocking(run->base_conninfo(), run->database());
  const PgResultPtr locks = exec_blocking(observer.get(), "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'",
                                          "read the locks");
  EXPECT_STREQ(PQgetvalue(locks.get(), 0, 0), "0");
  run->detach(sa);
}

TEST(PgStorageFibers, AnswersAndTheDeadlockVictimAreTheSameOverTwentyRepetitions) {
  const TwoPushes first_push = two_pushes("p", "p");
  const CycleOutcome first_cycle = wait_cycle();
  for (int i = 0; i < 20; ++i) {
    const TwoPushes push = two_pushes("p", "p");
    EXPECT_EQ(push.a, first_push.a) << "repetition " << i;
    EXPECT_EQ(push.b, first_push.b) << "repetition " << i;
    const CycleOutcome cycle = wait_cycle();
    EXPECT_EQ(cycle.a, first_cycle.a) << "repetition " << i;
    EXPECT_EQ(cycle.b, first_cycle.b) << "repetition " << i;
    ASSERT_EQ(cycle.deadlocks.size(), 1u) << "repetition " << i;
    EXPECT_EQ(cycle.deadlocks[0].cancelled, first_cycle.deadlocks[0].cancelled) << "repetition " << i;
    EXPECT_EQ(cycle.deadlocks[0].cycle, first_cycle.deadlocks[0].cycle) << "repetition " << i;
  }
}

}  // namespace
}  // namespace qdt::impl::postgres::testing
