#include "impl/storage/postgres/pg_transaction.h"

#include <cassert>

#include "impl/storage/postgres/pg_sql.h"
#include "impl/storage/postgres/timestamp_text.h"

namespace qdt::impl::postgres {
namespace {

constexpr int kSqliteBusy = 5;

StorageError injected(int code, int64_t index, TxnKind kind) {
  return StorageError("postgres: injected error " + std::to_string(code) + " at statement " + std::to_string(index) +
                          " of a " + txn_kind_name(kind) + " transaction",
                      code);
}

}  // namespace

std::string begin_statement(int64_t now_ms) {
  return "BEGIN; SELECT pg_catalog.set_config('qdt.txn_start_us', '" + std::to_string(timestamp_us_from_ms(now_ms)) +
         "', true)";
}

PgTransaction::PgTransaction(PgRun& run, Session& session, StatementGate& gate, StorageClock& clock, TxnKind kind)
    : run_(run), session_(session), gate_(gate), clock_(clock), kind_(kind) {
  // Reachable from the server (a backend or the lock probe's connection
  // ended under another fiber's statement): the engine's error, not an assertion.
  if (session_.in_flight()) {
    throw ClusterError("postgres: client " + session_.name() +
                       " still has a statement in flight after an earlier failure of the server");
  }
  const int64_t index = next_index_++;
  if (const int code = gate_.before_server_statement(kind_, index, StatementKind::begin, *this)) {
    throw injected(code, index, kind_);
  }
  open_ = true;
  execute(begin_statement(clock_.now_ms()), {}, false);
}

PgTransaction::~PgTransaction() {
  if (!open_) return;
  // A destructor runs while an error unwinds, and may not throw: when the
  // server failed (a lost lock probe), that error is already on its way.
  try {
    abort();
  } catch (...) {
  }
}

StatementOutcome PgTransaction::run(const std::string& sql, const std::vector<Param>& params, StatementKind kind,
                                    bool takes_lock, bool leaves_line) {
  assert(open_);
  const int64_t index = next_index_++;
  if (const int code = gate_.before_server_statement(kind_, index, kind, *this)) fail(injected(code, index, kind_));
  if (index == 1 && !run_.own_sql()) hold_back_while_another_waits();
  StatementOutcome out = execute(sql, params);
  if (leaves_line) run_.settle(&session_);
  if (takes_lock) gate_.on_locked(kind_);
  return out;
}

void PgTransaction::hold_back_while_another_waits() {
  // The session holds no lock yet (only BEGIN ran), so holding it back
  // blocks nobody; it waits in the gate, never through the server-side wait
  // whose faults act on a sent statement.
  for (uint32_t attempt = 1; run_.another_blocked(session_); ++attempt) {
    if (!gate_.wait_turn(kind_, attempt)) {
      fail(StorageError("postgres: client " + session_.name() + " gave up waiting for another client's lock wait in a " +
                            txn_kind_name(kind_) + " transaction",
                        kSqliteBusy));
    }
  }
}

StatementOutcome PgTransaction::run_ungated(const std::string& sql, const std::vector<Param>& params) {
  assert(open_);
  return execute(sql, params);
}

void PgTransaction::commit() { finish(true); }

void PgTransaction::commit_ungated() { finish(false); }

void PgTransaction::finish(bool gated) {
  assert(open_);
  const int64_t index = next_index_++;
  if (const int code = gated ? gate_.before_server_statement(kind_, index, StatementKind::commit, *this) : 0) {
    fail(injected(code, index, kind_));
  }
  execute("COMMIT", {});
  open_ = false;
  run_.settle(&session_);
  gate_.on_ended(kind_, true);
}

StatementOutcome PgTransaction::execute(const std::string& sql, const std::vector<Param>& params,
                                        bool reads_clock) {
  try {
    run_.clock_before(session_, sql, reads_clock, clock_.now_ms());
    session_.send(sql, params, run_.others_outside_transactions(session_));
    Progress progress = run_.wait(session_);
    for (uint32_t attempt = 1; progress == Progress::blocked; ++attempt) {
      if (!gate_.wait_busy_on_server(kind_, attempt, *this)) {
        session_.cancel();
        while (run_.wait(session_) != Progress::returned) {
        }
        session_.take_outcome();
        run_.taken(session_);
        run_.take_deadlock_victim(session_);
        fail(StorageError("postgres: client " + session_.name() + " gave up waiting for a lock in a " +
                              txn_kind_name(kind_) + " transaction",
                          kSqliteBusy));
      }
      progress = run_.wait(session_);
    }
  } catch (const StorageError& e) {
    if (!open_) throw;
    fail(e);
  }
  StatementOutcome out = session_.take_outcome();
  run_.taken(session_);
  if (!out.ok) {
    if (run_.take_deadlock_victim(session_)) {
      fail(StorageError::deadlock("postgres: client " + session_.name() + "'s " + txn_kind_name(kind_) +
                                  " transaction was cancelled to break a wait cycle (SQLSTATE 40P01)"));
    }
    fail(storage_error(out, "client " + session_.name()));
  }
  return out;
}

void PgTransaction::terminate() { run_.terminate_backend(session_); }

void PgTransaction::cancel_lock_wait() { run_.cancel_lock_wait(session_); }

void PgTransaction::fail(const StorageError& error) {
  abort();
  throw error;
}

void PgTransaction::abort() {
  if (!open_) return;
  open_ = false;
  try {
    if (session_.in_flight()) {
      session_.cancel();
      while (run_.wait(session_) != Progress::returned) {
      }
      session_.take_outcome();
      run_.taken(session_);
    }
    // A statement that failed inside the line (a bundle's or a configure's
    // turns) leaves its session-level lock held: leave it with the rollback.
    session_.send(std::string("ROLLBACK; ") + sql::kLeaveLine, {});
    while (run_.wait(session_) != Progress::returned) {
    }
    session_.take_outcome();
    run_.taken(session_);
  } catch (const StorageError&) {
    // The connection is gone: the server rolls the transaction back itself.
  }
  run_.settle(&session_);
  gate_.on_ended(kind_, false);
}

}  // namespace qdt::impl::postgres
