#pragma once
// The seam every statement of every engine crosses: where the world makes a
// statement a round trip in virtual time, injects faults, waits out locks,
// and learns when a transaction took and released its lock.
#include <cstdint>

#include "impl/storage/transaction_kind.h"

namespace qdt::impl {

// The server process behind one connection, on an engine that has one
// (PostgreSQL's backend; SQLite has none): what a gate may do to it, as an
// operator or a failing server would, between the engine's own steps. Each
// returns once the server is in a known state, so what follows does not
// depend on timing.
class ServerBackend {
 public:
  virtual ~ServerBackend() = default;
  // Ends the backend while the connection is idle (inside a transaction or
  // not) and returns once it is gone: its transaction rolled back, its locks
  // released, the connection closed. The engine finds the connection closed
  // at its next statement.
  virtual void terminate() = 0;
  // Cancels the statement that waits for a lock and returns once it
  // returned, with the server's cancel error.
  virtual void cancel_lock_wait() = 0;
};

// The seam every statement crosses. The default gate is an atomic, faultless
// connection: no latency, and a lock wait is an error.
class StatementGate {
 public:
  virtual ~StatementGate() = default;
  // Before statement `index` (0 = BEGIN) of a `txn` transaction runs. May
  // suspend the calling fiber. Returns 0, or the error code the statement
  // fails with instead of running (SQLite's numbering, on every engine).
  virtual int before_statement(TxnKind txn, int64_t index, StatementKind kind) { return 0; }
  // The statement waits for a lock another session holds (SQLite answered
  // BUSY, or PostgreSQL reports the backend blocked), for the `attempt`-th
  // time: wait until the lock may be free. false gives up (the transaction
  // fails).
  virtual bool wait_busy(TxnKind txn, uint32_t attempt) { return false; }
  // The same two, on an engine with a server process per connection: the
  // gate may act on `backend` for the duration of the call.
  virtual int before_server_statement(TxnKind txn, int64_t index, StatementKind kind, ServerBackend& backend) {
    return before_statement(txn, index, kind);
  }
  virtual bool wait_busy_on_server(TxnKind txn, uint32_t attempt, ServerBackend& backend) {
    return wait_busy(txn, attempt);
  }
  // The engine holds a statement back before sending it (PostgreSQL on
  // foreign SQL: another client waits for a lock, §9.2), for the `attempt`-th
  // time: wait until a transaction may have ended. Not a lock wait: no lock
  // is asked for yet. false gives up (the transaction fails).
  virtual bool wait_turn(TxnKind txn, uint32_t attempt) { return wait_busy(txn, attempt); }
  // The transaction took its serializing lock (SQLite's BEGIN IMMEDIATE, a
  // partition row's FOR UPDATE).
  virtual void on_locked(TxnKind txn) {}
  // The transaction ended (committed, or rolled back); locks are released.
  virtual void on_ended(TxnKind txn, bool committed) {}
};

}  // namespace qdt::impl
