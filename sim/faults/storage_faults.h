#pragma once
// Storage faults (docs/semantics.md §8) as a plan the connections' gates consult: the
// `storage_fail` step arms the next `count` transactions of one kind to fail
// at statement `after_statements` (or at their COMMIT when they are shorter),
// with SQLITE_IOERR or SQLITE_FULL. The statement then fails instead of
// running and SQLite's ROLLBACK undoes the statements before it — the way a
// fault-injecting VFS makes a write fail, walked over every position k by
// the generators ("fail after k operations, for every k").
#include <cstdint>
#include <deque>

#include "impl/storage/sqlite/connection.h"

namespace qdt::sim {

// Which storage transactions an injected fault (`storage_fail`) hits.
enum class StorageOpKind { push, fetch, hydrate, ack, read, retention, purge, any };

// The SQLite error an injected fault makes a statement return.
enum class FaultCode { io_error, full };

// `storage_fail`: the next `count` transactions of kind `op` fail at
// statement `after_statements` of the transaction (0 = its BEGIN; a
// transaction with fewer statements fails at its last one, the COMMIT), so
// SQLite rolls back what the earlier statements did.
struct StorageFault {
  StorageOpKind op = StorageOpKind::push;
  int64_t count = 1;
  int64_t after_statements = 0;
  FaultCode code = FaultCode::io_error;
};

// A fault armed on one transaction.
struct ArmedFault {
  int64_t statement = 0;  // fail at this statement index, or at COMMIT if sooner
  int code = 0;           // SQLite result code
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
// StorageOpKind -> does it match a transaction of `txn` kind (admin never).
bool fault_matches(StorageOpKind op, impl::TxnKind txn);

}  // namespace qdt::sim
