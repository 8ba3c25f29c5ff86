#pragma once
// One storage transaction on a PostgreSQL session, statement by statement
// (docs/semantics.md §9.2): each crosses the StatementGate, writes the
// virtual clock if it moved, is sent, and is waited out as the run decides;
// after COMMIT or ROLLBACK the run settles before the gate hears it ended.
#include <cstdint>
#include <string>
#include <vector>

#include "impl/storage/postgres/pg_run.h"
#include "impl/storage/postgres/session.h"
#include "impl/storage/statement_gate.h"
#include "impl/storage/storage_clock.h"
#include "impl/storage/transaction_kind.h"

namespace qdt::impl::postgres {

// A transaction's first statement: BEGIN, and the virtual time at BEGIN in
// the transaction-local setting qdt.txn_start_us, which the shadowed now()
// and transaction_timestamp() return (clock.sql).
std::string begin_statement(int64_t now_ms);

// The gate reaches the connection's backend through the transaction
// (ServerBackend): a fault is done to the real server, and the transaction
// meets the server's own error.
class PgTransaction final : private ServerBackend {
 public:
  // BEGIN (statement 0). Throws StorageError when the gate fails it; no
  // transaction then exists.
  PgTransaction(PgRun& run, Session& session, StatementGate& gate, StorageClock& clock, TxnKind kind);
  PgTransaction(const PgTransaction&) = delete;
  PgTransaction& operator=(const PgTransaction&) = delete;
  // Rolls back unless committed or already ended by a failure.
  ~PgTransaction();

  // The next statement. `takes_lock`: it takes the partition row's lock
  // (the gate hears on_locked once it returned). `leaves_line`: it may
  // release the line (pg_sql.h) before it returns, which grants it to a
  // waiter at once: every other client settles before anything else happens,
  // as after a commit. Throws StorageError after rolling back when it fails,
  // when the gate injects a fault, when a lock wait is given up, or when the
  // run cancelled it to break a wait cycle.
  StatementOutcome run(const std::string& sql, const std::vector<Param>& params, StatementKind kind,
                       bool takes_lock = false, bool leaves_line = false);
  // A statement outside the gate (an instrument, not work).
  StatementOutcome run_ungated(const std::string& sql, const std::vector<Param>& params);
  void commit();
  // COMMIT with no scheduling point before it, for a read-only transaction
  // whose answer came from its last statement: nothing else commits between
  // that answer and this end, where the history places the transaction.
  void commit_ungated();
  bool open() const { return open_; }

 private:
  void finish(bool gated);
  // SQL without qdt's turns: the first statement after BEGIN waits while
  // another client of the run waits for a lock (PgRun::another_blocked).
  void hold_back_while_another_waits();
  // `reads_clock` false: the statement cannot read the virtual clock (see
  // PgRun::clock_before).
  StatementOutcome execute(const std::string& sql, const std::vector<Param>& params, bool reads_clock = true);
  // ROLLBACK, settle, on_ended(false); never throws.
  void abort();
  void terminate() override;
  void cancel_lock_wait() override;
  [[noreturn]] void fail(const StorageError& error);

  PgRun& run_;
  Session& session_;
  StatementGate& gate_;
  StorageClock& clock_;
  TxnKind kind_;
  int64_t next_index_ = 0;
  bool open_ = false;
};

}  // namespace qdt::impl::postgres
