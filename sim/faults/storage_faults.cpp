#include "sim/faults/storage_faults.h"

#include <cassert>
#include <sqlite3.h>

namespace qdt::sim {

int sqlite_code(FaultCode code) { return code == FaultCode::full ? SQLITE_FULL : SQLITE_IOERR; }

const char* pg_fault_action_name(PgFaultAction action) {
  return action == PgFaultAction::cancel ? "cancel" : "terminate";
}

bool fault_matches(StorageOpKind op, impl::TxnKind txn) {
  using impl::TxnKind;
  // The script's own steps (configure, delete_segment) are never failed.
  if (txn == TxnKind::admin) return false;
  switch (op) {
    case StorageOpKind::any: return true;
    case StorageOpKind::push: return txn == TxnKind::push;
    case StorageOpKind::fetch: return txn == TxnKind::fetch;
    case StorageOpKind::hydrate: return txn == TxnKind::hydrate;
    case StorageOpKind::ack: return txn == TxnKind::ack;
    case StorageOpKind::read: return txn == TxnKind::read;
    case StorageOpKind::retention: return txn == TxnKind::retention;
    case StorageOpKind::purge: return txn == TxnKind::purge;
  }
  return false;
}

void FaultPlan::add(const StorageFault& fault) {
  assert(fault.count >= 0 && fault.after_statements >= 0);
  if (fault.count > 0) pending_.push_back(fault);
}

bool FaultPlan::arm(impl::TxnKind txn, ArmedFault& armed) {
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (!fault_matches(it->op, txn)) continue;
    armed = ArmedFault{it->after_statements, sqlite_code(it->code), it->pg};
    if (--it->count == 0) pending_.erase(it);
    return true;
  }
  return false;
}

}  // namespace qdt::sim
