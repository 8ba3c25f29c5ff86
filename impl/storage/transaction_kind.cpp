#include "impl/storage/transaction_kind.h"

namespace qdt::impl {

const char* txn_kind_name(TxnKind kind) {
  switch (kind) {
    case TxnKind::push: return "push";
    case TxnKind::fetch: return "fetch";
    case TxnKind::hydrate: return "hydrate";
    case TxnKind::ack: return "ack";
    case TxnKind::read: return "read";
    case TxnKind::retention: return "retention";
    case TxnKind::purge: return "purge";
    case TxnKind::admin: return "admin";
  }
  return "?";
}

}  // namespace qdt::impl
