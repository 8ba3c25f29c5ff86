#pragma once
// What the connections of one run share (docs/semantics.md §9.2): the
// control connection (lock probe, clock writes, wait-for queries), the run's
// sessions, and the deadlock breaker.
//
// After a transaction of one session ends, settle() lets every other session
// with a statement in flight return or block again, in the order of their
// client names, before the world's scheduler picks the next fiber: so the
// order of statement starts, lock grants and commits is a function of the
// fiber schedule only. A wait cycle (every session of it blocked on another
// of it) is broken by cancelling the session that started waiting last, not
// by PostgreSQL's detector, whose victim depends on timing.
//
// Not thread-safe: the fibers of one world drive it from one thread.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "impl/storage/postgres/interface_check.h"
#include "impl/storage/postgres/lock_probe.h"
#include "impl/storage/postgres/pg_connection.h"
#include "impl/storage/postgres/reset.h"
#include "impl/storage/postgres/session.h"

namespace qdt::impl::postgres {

// A wait cycle the run broke: the client whose transaction was cancelled,
// and every client of the cycle (in cycle order, starting from the victim).
struct PgDeadlock {
  std::string cancelled;
  std::vector<std::string> cycle;
};

// What the backend lends each run; everything must outlive the run.
struct PgRunShared {
  std::string base_conninfo;
  std::string database;
  LockProbe* probe = nullptr;
  PGconn* control = nullptr;  // blocking, holds no locks between calls
  const InterfaceCheck* interface = nullptr;
  DatabaseReset* reset = nullptr;
  // The SQL is qdt's own (or one of its variants): which statements may read
  // the clock is known (sql::own_sql_may_read_clock); else any may.
  bool own_sql = false;
  // Where every session's server process runs (cpu_placement.h); nullopt: anywhere.
  std::optional<int> cpu;
};

// Prepares the clock write PgRun::advance_clock sends on `control`, once per
// connection: a run writes the clock before most statements, and parsing and
// planning it each time is a share of every write.
void prepare_clock_write(PGconn* control);

class PgRun {
 public:
  explicit PgRun(PgRunShared shared, WaitOptions wait = {});
  PgRun(const PgRun&) = delete;
  PgRun& operator=(const PgRun&) = delete;

  const std::string& base_conninfo() const { return shared_.base_conninfo; }
  const std::string& database() const { return shared_.database; }
  const InterfaceCheck& interface() const { return *shared_.interface; }
  LockProbe& probe() { return *shared_.probe; }
  bool own_sql() const { return shared_.own_sql; }

  // Whether every other session of the run is idle outside a transaction:
  // then none holds a lock, and `session` may prepare a statement.
  bool others_outside_transactions(const Session& session) const;
  // Whether another session of the run waits for a lock on the server. SQL
  // without qdt's turns holds back a transaction's first statement while one
  // does, so one commit never wakes two waiters that then race (§9.4).
  bool another_blocked(const Session& session) const;

  // A session of the run joins (by its client name, unique in the run; its
  // server process is placed on the run's CPU) and leaves.
  void attach(Session& session);
  void detach(Session& session);

  // Writes the virtual clock when `now_ms` is later than what was last
  // written; never moves it backwards. The control connection must have been
  // through prepare_clock_write().
  void advance_clock(int64_t now_ms);
  // Before `session` sends `sql` at `now_ms`: writes the clock, or defers
  // the write when `sql` cannot read the clock (`reads_clock` false: a BEGIN,
  // whose text carries its time; under qdt's own SQL every statement but a
  // push) and no other session has a statement in flight (a push waiting
  // for a lock this one may release reads the clock when it is granted).
  // A deferred time is written with the next write, so every statement
  // reads the clock it would have read had every write come first.
  void clock_before(const Session& session, const std::string& sql, bool reads_clock, int64_t now_ms);
  // Writes a deferred time before an inspection that may read the clock.
  void clock_before_inspection(const std::string& sql);
  int64_t clock_ms() const { return clock_ms_; }

  // Waits for `session`'s statement in flight to return or block; a new
  // block looks for a wait cycle and breaks it. A statement that was
  // granted the lock it waited for and now waits for another blocks anew:
  // it started waiting then, and a cycle may have closed. Returns at once
  // when the statement already returned while settling.
  Progress wait(Session& session);
  // The statement's outcome was taken: the session is idle again.
  void taken(Session& session);
  // Every session but `except` with a statement in flight returns or
  // blocks again, in client-name order.
  void settle(const Session* except);
  // Whether `session`'s last statement was cancelled to break a wait cycle
  // (asking clears it).
  bool take_deadlock_victim(Session& session);

  const std::vector<PgDeadlock>& deadlocks() const { return deadlocks_; }

  // What a fault does to a client's backend (impl::ServerBackend), through
  // the control connection, each returning once the server's state is
  // known. terminate_backend: no statement in flight; pg_terminate_backend,
  // then wait until the backend has exited (its transaction rolled back, its
  // locks released) and libpq sees the connection closed; then every other
  // client settles, as after a rollback. cancel_lock_wait: the statement
  // waits for a lock; pg_cancel_backend, then wait until it returned
  // (SQLSTATE 57014).
  void terminate_backend(Session& session);
  void cancel_lock_wait(Session& session);

  // Empties the interface's tables and zeroes the clock (no session of the
  // run may hold a lock).
  void reset_rows();

 private:
  enum class State : uint8_t { idle, running, blocked, returned };
  struct Member {
    Session* session = nullptr;
    State state = State::idle;
    uint64_t blocked_seq = 0;  // when it last started waiting
    std::string waiting_for;   // the lock it waits for (LockProbe::last_wait)
    bool victim = false;
  };
  Member& member(const Session& session);
  void refresh_pids();
  void break_wait_cycle();
  std::vector<int> blocking_pids(int pid);

  PgRunShared shared_;
  WaitOptions wait_;
  std::vector<Member> members_;  // sorted by client name
  std::vector<int> pids_;
  int64_t clock_ms_ = 0;
  int64_t deferred_ms_ = 0;
  uint64_t next_blocked_seq_ = 0;
  std::vector<PgDeadlock> deadlocks_;
};

}  // namespace qdt::impl::postgres
