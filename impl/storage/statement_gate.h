#pragma once
// The seam every statement of every engine crosses: where the world makes a
// statement a round trip in virtual time, injects faults, waits out locks,
// and learns when a transaction took and released its lock.
#include <cstdint>

#include "impl/storage/transaction_kind.h"

namespace qdt::impl {

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
  // The transaction took its serializing lock (SQLite's BEGIN IMMEDIATE, a
  // partition row's FOR UPDATE).
  virtual void on_locked(TxnKind txn) {}
  // The transaction ended (committed, or rolled back); locks are released.
  virtual void on_ended(TxnKind txn, bool committed) {}
};

}  // namespace qdt::impl
