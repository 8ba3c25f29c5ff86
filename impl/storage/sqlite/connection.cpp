#include "impl/storage/sqlite/connection.h"

#include <cassert>

namespace qdt::impl {

Connection::Connection(const std::string& uri, StatementGate* gate)
    : db_(uri),
      gate_(gate != nullptr ? gate : &default_gate_),
      begin_read_(Statement::deferred(db_.handle(), "BEGIN")),
      begin_write_(Statement::deferred(db_.handle(), "BEGIN IMMEDIATE")),
      commit_(Statement::deferred(db_.handle(), "COMMIT")),
      rollback_(Statement::deferred(db_.handle(), "ROLLBACK")) {}

int Connection::control(Statement& s) {
  const int rc = s.reset().step_rc();  // step_rc resets after an error, as sqlite3_exec finalized
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

void Connection::gate(StatementKind kind) {
  const int64_t index = next_statement_++;
  const int rc = gate_->before_statement(txn_, index, kind);
  if (rc != SQLITE_OK) {
    throw StorageError(std::string("injected ") + sqlite3_errstr(rc) + " at statement " + std::to_string(index) +
                           " of a " + txn_kind_name(txn_) + " transaction",
                       rc);
  }
}

template <typename Attempt>
int Connection::retry_busy(Attempt&& attempt) {
  for (uint32_t tries = 1;; ++tries) {
    const int rc = attempt();
    if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) return rc;
    // Bounded: a lock that is never released is a liveness failure, not a hang.
    if (tries >= kBusyAttemptsMax || !gate_->wait_busy(txn_, tries)) return rc;
  }
}

bool Connection::step(Statement& s, StatementKind kind) {
  assert(in_transaction() && "gated statements run inside a Txn");
  gate(kind);
  const int rc = retry_busy([&] { return s.step_rc(); });
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw StorageError(std::string("step failed: ") + sqlite3_errstr(rc) + ": " + sqlite3_errmsg(db_.handle()), rc);
}

void Connection::run(Statement& s, StatementKind kind) {
  const bool row = step(s, kind);
  assert(!row && "statement returned a row where none was expected");
  (void)row;
}

Txn::Txn(Connection& c, TxnKind kind, bool write) : c_(c) {
  assert(!c_.in_transaction() && "transactions do not nest");
  c_.txn_ = kind;
  c_.next_statement_ = 0;
  c_.gate(StatementKind::begin);
  const char* sql = write ? "BEGIN IMMEDIATE" : "BEGIN";
  Statement& begin = write ? c_.begin_write_ : c_.begin_read_;
  const int rc = c_.retry_busy([&] { return c_.control(begin); });
  if (rc != SQLITE_OK) {
    throw StorageError(std::string(sql) + " failed: " + sqlite3_errstr(rc), rc);
  }
  if (write) c_.gate_->on_locked(kind);
}

Txn::~Txn() {
  if (done_) return;
  if (c_.in_transaction()) {
    try {
      c_.control(c_.rollback_);
    } catch (const StorageError&) {  // ROLLBACK could not be prepared: never throw from here
      sqlite3_exec(c_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    }
  }
  assert(!c_.in_transaction());
  c_.gate_->on_ended(c_.txn_, false);
}

void Txn::commit() {
  assert(!done_);
  c_.gate(StatementKind::commit);
  const int rc = c_.retry_busy([&] { return c_.control(c_.commit_); });
  if (rc != SQLITE_OK) {
    throw StorageError(std::string("COMMIT failed: ") + sqlite3_errstr(rc), rc);
  }
  done_ = true;
  c_.gate_->on_ended(c_.txn_, true);
}

}  // namespace qdt::impl
