// Declares the pre-update hook, which Debian's libsqlite3 is built with
// (PRAGMA compile_options: ENABLE_PREUPDATE_HOOK); before any include of sqlite3.h.
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include "sim/write_counter.h"

#include <cassert>
#include <cstring>
#include <stdexcept>
#include <string>

namespace qdt::sim {

// What the hooks have seen. A row change lands in `statement` first; it moves
// to `transaction` when the statement is known to have kept it, and to
// `committed` when the transaction is known to have committed.
//
// - A statement kept its changes iff the connection's total change count
//   moved while it ran: SQLite adds a statement's row count when it ends
//   well (or with OR FAIL, which keeps what it did) and adds nothing when
//   it undoes the statement. The next statement's start (the STMT trace)
//   or the commit settles that. This reads true only without triggers (a
//   trigger's program adds its count even when its statement is undone
//   later, and is traced as a statement of its own), hence the check in
//   install_write_counter.
// - A transaction committed iff the commit hook ran and the connection is
//   back in autocommit mode at the next settling: a COMMIT that failed busy
//   leaves the transaction open (and will call the hook again), one that
//   failed otherwise rolls back, and the rollback hook drops everything.
struct WriteCounter::Log {
  sqlite3* db = nullptr;
  WrittenRows committed;
  WrittenRows transaction;
  WrittenRows statement;
  sqlite3_int64 changes_at_statement_start = 0;
  bool commit_seen = false;

  void settle() {
    if (commit_seen) {
      commit_seen = false;
      if (sqlite3_get_autocommit(db) != 0) {
        // An autocommitted statement commits inside its own run: it kept its rows.
        committed += transaction;
        committed += statement;
        transaction = statement = {};
      }
    }
    if (statement != WrittenRows{}) {
      if (sqlite3_total_changes64(db) != changes_at_statement_start) transaction += statement;
      statement = {};
    }
  }

  static void on_preupdate(void* self, sqlite3* /*db*/, int /*op*/, const char* database, const char* table,
                           sqlite3_int64 /*key1*/, sqlite3_int64 /*key2*/) {
    if (std::strcmp(database, "main") != 0) return;
    Log& log = *static_cast<Log*>(self);
    if (std::strcmp(table, "segments") == 0) {
      log.statement.segments++;
    } else if (std::strcmp(table, "log_txns") == 0) {
      log.statement.sidecar_rows++;
    }
  }
  static int on_trace(unsigned /*type*/, void* self, void* /*statement*/, void* /*sql*/) {
    Log& log = *static_cast<Log*>(self);
    log.settle();
    log.changes_at_statement_start = sqlite3_total_changes64(log.db);
    return 0;
  }
  static int on_commit(void* self) {
    static_cast<Log*>(self)->commit_seen = true;
    return 0;  // never turns the commit into a rollback
  }
  static void on_rollback(void* self) {
    Log& log = *static_cast<Log*>(self);
    log.transaction = log.statement = {};
    log.commit_seen = false;
  }
};

void install_write_counter(impl::Storage& storage) {
  assert(!storage.in_transaction());
  storage.database().exec("PRAGMA temp_store = MEMORY");
  impl::Statement triggers(storage.database().handle(),
                           "SELECT (SELECT count(*) FROM main.sqlite_master WHERE type = 'trigger') + "
                           "(SELECT count(*) FROM temp.sqlite_master WHERE type = 'trigger')");
  const bool has = triggers.step();
  assert(has);
  if (triggers.column_int(0) != 0) {
    throw std::logic_error("the write counter cannot count a schema with triggers (sim/write_counter.cpp)");
  }
}

WriteCounter::WriteCounter(impl::Storage& storage) : storage_(storage), log_(std::make_unique<Log>()) {
  sqlite3* db = storage.database().handle();
  log_->db = db;
  log_->changes_at_statement_start = sqlite3_total_changes64(db);
  void* earlier = sqlite3_preupdate_hook(db, &Log::on_preupdate, log_.get());
  assert(earlier == nullptr && "one write counter per connection");
  (void)earlier;
  sqlite3_commit_hook(db, &Log::on_commit, log_.get());
  sqlite3_rollback_hook(db, &Log::on_rollback, log_.get());
  if (sqlite3_trace_v2(db, SQLITE_TRACE_STMT, &Log::on_trace, log_.get()) != SQLITE_OK) {
    throw std::runtime_error("the write counter cannot trace statements");
  }
}

WriteCounter::~WriteCounter() {
  fingerprint_.reset();
  sqlite3* db = log_->db;
  sqlite3_trace_v2(db, 0, nullptr, nullptr);
  sqlite3_rollback_hook(db, nullptr, nullptr);
  sqlite3_commit_hook(db, nullptr, nullptr);
  sqlite3_preupdate_hook(db, nullptr, nullptr);
}

WrittenRows WriteCounter::read() {
  log_->settle();
  return log_->committed;
}

history::PartitionFingerprint WriteCounter::fingerprint(const std::string& queue, const std::string& partition) {
  if (!fingerprint_) {
    fingerprint_ = std::make_unique<impl::Statement>(
        storage_.database().handle(),
        "SELECT p.last_offset, p.txns_start FROM main.partitions p "
        "WHERE p.queue_id = (SELECT queue_id FROM main.queues WHERE name = ?1) AND p.name = ?2");
  }
  impl::Statement& s = fingerprint_->reset().bind(1, queue).bind(2, partition);
  history::PartitionFingerprint f;
  if (s.step()) {
    f.last_offset = s.column_int(0);
    f.txns_start = s.column_int(1);
  }
  s.reset();
  // After the statement: it settled what came before it (a read changes nothing).
  const WrittenRows rows = read();
  f.segments = rows.segments;
  f.sidecar_rows = rows.sidecar_rows;
  return f;
}

}  // namespace qdt::sim
