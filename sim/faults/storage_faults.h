#pragma once
// Storage faults (docs/semantics.md §8) as a plan the connections' gates consult: the
// `storage_fail` step arms the next `count` transactions of one kind to fail
// at statement `after_statements` (or at their COMMIT when they are shorter),
// with SQLITE_IOERR or SQLITE_FULL. The statement then fails instead of
// running and SQLite's ROLLBACK undoes the statements before it — the way a
// fault-injecting VFS makes a write fail, walked over every position k by
// the generators ("fail after k operations, for every k").
//
// On PostgreSQL the fault is done to the real server instead, by the run's
// control connection, at a point where the backend's state is known
// (docs/semantics.md §8): `cancel` (the default) lets statement k run and
// cancels it if it waits for a lock (the server answers 57014 and the
// transaction rolls back), or, when it does not wait, ends the backend once
// it returned, before the next statement; `terminate` ends the backend just
// before statement k, idle inside the transaction or before it, so the
// statement finds the connection closed and the server has rolled back. A
// BEGIN or a COMMIT never waits: `cancel` aimed at one terminates before it.
#include <cstdint>
#include <deque>

#include "impl/storage/sqlite/connection.h"

namespace qdt::sim {

// Which storage transactions an injected fault (`storage_fail`) hits.
enum class StorageOpKind { push, fetch, hydrate, ack, read, retention, purge, any };

// The SQLite error an injected fault makes a statement return.
enum class FaultCode { io_error, full };

// What an injected fault does to a PostgreSQL backend.
enum class PgFaultAction { terminate, cancel };

// `storage_fail`: the next `count` transactions of kind `op` fail at
// statement `after_statements` of the transaction (0 = its BEGIN; a
// transaction with fewer statements fails at its last one, the COMMIT), so
// SQLite rolls back what the earlier statements did.
struct StorageFault {
  StorageOpKind op = StorageOpKind::push;
  int64_t count = 1;
  int64_t after_statements = 0;
  FaultCode code = FaultCode::io_error;
  PgFaultAction pg = PgFaultAction::cancel;
};

// A fault armed on one transaction.
struct ArmedFault {
  int64_t statement = 0;  // fail at this statement index, or at COMMIT if sooner
  int code = 0;           // SQLite result code
  PgFaultAction pg = PgFaultAction::cancel;
};

class FaultPlan {
 public:
  void add(const StorageFault& fault);
  // At a transaction's BEGIN: the fault this transaction carries, if any
  // (consumes one of the count of the first matching fault).
  bool arm(impl::TxnKind txn, ArmedFault& armed);
  bool empty() const { return pending_.empty(); }
  uint64_t injected() const { return injected_; }
  void count_injected() { injected_++; }

 private:
  std::deque<StorageFault> pending_;
  uint64_t injected_ = 0;
};

int sqlite_code(FaultCode code);
const char* pg_fault_action_name(PgFaultAction action);
// StorageOpKind -> does it match a transaction of `txn` kind (admin never).
bool fault_matches(StorageOpKind op, impl::TxnKind txn);

}  // namespace qdt::sim
