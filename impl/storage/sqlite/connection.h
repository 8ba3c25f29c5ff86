#pragma once
// One client connection to the storage database (docs/semantics.md §2.4, "Concurrency").
//
// Storage is one SQLite database shared by several connections (a broker
// each, the retention loop, the admin), as Queen's brokers share one
// PostgreSQL. Every statement of a transaction passes through a
// StatementGate first: the seam at which the world makes the statement a
// round trip (virtual latency, other fibers run meanwhile) and injects faults
// (the statement then fails with that SQLite error, and the transaction is
// rolled back by SQLite's own ROLLBACK, as with an I/O error from a VFS).
//
// The write serializer is SQLite's own write lock, taken by BEGIN IMMEDIATE.
// A statement answered SQLITE_BUSY (another connection holds the lock) is
// retried after the gate has waited, a bounded number of times.
//
// Not thread-safe: one fiber uses a connection at a time (the world gives
// each broker, the retention loop and the admin their own).
#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "impl/storage/sqlite/sqlite.h"
#include "impl/storage/statement_gate.h"
#include "impl/storage/storage_clock.h"
#include "impl/storage/transaction_kind.h"

namespace qdt::impl {

class Connection {
 public:
  // Retries of one statement answered SQLITE_BUSY before the transaction fails.
  static constexpr uint32_t kBusyAttemptsMax = 100'000;

  // `gate` may be null (the default gate); it must outlive the connection.
  Connection(const std::string& uri, StatementGate* gate);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  Database& db() { return db_; }
  sqlite3* handle() const { return db_.handle(); }
  bool in_transaction() const { return sqlite3_get_autocommit(db_.handle()) == 0; }

  // The first step of `s` as the next statement of the open transaction:
  // gated, BUSY waited out. Later rows of the same statement use s.step().
  bool step(Statement& s, StatementKind kind);
  // A statement that returns no row.
  void run(Statement& s, StatementKind kind = StatementKind::write);

 private:
  friend class Txn;
  void gate(StatementKind kind);
  template <typename Attempt>
  int retry_busy(Attempt&& attempt);

  // Runs a transaction-control statement (BEGIN, COMMIT, ROLLBACK), prepared
  // once per connection: sqlite3_exec would parse the text on every
  // transaction.
  int control(Statement& s);

  Database db_;
  StatementGate default_gate_;
  StatementGate* gate_;
  Statement begin_read_, begin_write_, commit_, rollback_;
  TxnKind txn_ = TxnKind::admin;
  int64_t next_statement_ = 0;
};

// A transaction on one connection: BEGIN IMMEDIATE (write: takes the write
// lock at once) or BEGIN (read: a snapshot from its first statement on).
// Rolls back unless committed; the rollback never suspends and never fails
// by injection (a dead client's transaction is rolled back by the server).
class Txn {
 public:
  Txn(Connection& connection, TxnKind kind, bool write);
  Txn(const Txn&) = delete;
  Txn& operator=(const Txn&) = delete;
  ~Txn();
  void commit();

 private:
  Connection& c_;
  bool done_ = false;
};

}  // namespace qdt::impl
