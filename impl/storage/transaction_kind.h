#pragma once
// What a storage transaction is for and what each of its statements does:
// the world aims faults and draws latency by these, on every engine.
#include <cstdint>

namespace qdt::impl {

// What a transaction is for; faults are aimed by kind.
enum class TxnKind : uint8_t { push, fetch, hydrate, ack, read, retention, purge, admin };
enum class StatementKind : uint8_t { begin, read, write, commit };
const char* txn_kind_name(TxnKind kind);

}  // namespace qdt::impl
