// Declares the pre-update hook, which Debian's libsqlite3 is built with
// (PRAGMA compile_options: ENABLE_PREUPDATE_HOOK); before any include of sqlite3.h.
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include "sim/world/write_counter.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

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
//
// Changes to the partitions table ride along the same way: a row's new
// last_offset and txns_start (SQLite's values for the row it is about to
// write), or that a row was inserted or deleted.
struct WriteCounter::Log {
  struct PartitionWrite {
    int64_t row = -1;
    int64_t last_offset = -1;
    int64_t txns_start = 0;
    bool updated = true;  // false: the row was inserted or deleted
  };
  struct Changes {
    WrittenRows rows;
    std::vector<PartitionWrite> partitions;
    bool empty() const { return rows == WrittenRows{} && partitions.empty(); }
    void add(Changes& o) {
      rows += o.rows;
      partitions.insert(partitions.end(), o.partitions.begin(), o.partitions.end());
      o.clear();
    }
    void clear() {
      rows = {};
      partitions.clear();
    }
  };

  sqlite3* db = nullptr;
  WrittenRows committed;
  // Since the last fingerprint(), up to kPartitionWritesKept: a connection
  // that never asks (an admin's, retention's) keeps no more than that.
  static constexpr size_t kPartitionWritesKept = 256;
  std::vector<PartitionWrite> committed_partitions;
  bool partitions_overflowed = false;
  Changes transaction;
  Changes statement;
  sqlite3_int64 changes_at_statement_start = 0;
  bool commit_seen = false;

  void commit(Changes& changes) {
    committed += changes.rows;
    committed_partitions.insert(committed_partitions.end(), changes.partitions.begin(), changes.partitions.end());
    if (committed_partitions.size() > kPartitionWritesKept) {
      committed_partitions.clear();
      partitions_overflowed = true;
    }
    changes.clear();
  }

  void settle() {
    if (commit_seen) {
      commit_seen = false;
      if (sqlite3_get_autocommit(db) != 0) {
        // An autocommitted statement commits inside its own run: it kept its rows.
        commit(transaction);
        commit(statement);
      }
    }
    if (!statement.empty()) {
      if (sqlite3_total_changes64(db) != changes_at_statement_start) {
        transaction.add(statement);
      } else {
        statement.clear();
      }
    }
  }

  // partitions (partition_id INTEGER PRIMARY KEY, queue_id, name,
  // last_offset, txns_start): impl/schema.cpp.
  static constexpr int kLastOffsetColumn = 3;
  static constexpr int kTxnsStartColumn = 4;

  // A hook runs inside SQLite's C code, where no exception may pass: a value
  // it cannot read marks the log, and the next read() throws.
  bool unreadable = false;
  int64_t new_value(sqlite3* db, int column) {
    sqlite3_value* v = nullptr;
    if (sqlite3_preupdate_new(db, column, &v) != SQLITE_OK || v == nullptr) {
      unreadable = true;
      return -1;
    }
    return sqlite3_value_int64(v);
  }

  static void on_preupdate(void* self, sqlite3* db, int op, const char* database, const char* table,
                           sqlite3_int64 key1, sqlite3_int64 key2) {
    if (std::strcmp(database, "main") != 0) return;
    Log& log = *static_cast<Log*>(self);
    if (std::strcmp(table, "segments") == 0) {
      log.statement.rows.segments++;
    } else if (std::strcmp(table, "log_txns") == 0) {
      log.statement.rows.sidecar_rows++;
    } else if (std::strcmp(table, "partitions") == 0) {
      if (op == SQLITE_UPDATE && key1 == key2) {
        log.statement.partitions.push_back(
            {key2, log.new_value(db, kLastOffsetColumn), log.new_value(db, kTxnsStartColumn), true});
      } else {
        log.statement.partitions.push_back({op == SQLITE_INSERT ? key2 : key1, -1, 0, false});
      }
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
    log.transaction.clear();
    log.statement.clear();
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
    throw std::logic_error("the write counter cannot count a schema with triggers (sim/world/write_counter.cpp)");
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
  if (log_->unreadable) throw std::logic_error("the write counter could not read a partitions row's new values");
  log_->settle();
  return log_->committed;
}

history::PartitionFingerprint WriteCounter::fingerprint(const std::string& queue, const std::string& partition) {
  if (!fingerprint_) {
    fingerprint_ = std::make_unique<impl::Statement>(
        storage_.database().handle(),
        "SELECT p.partition_id, p.last_offset, p.txns_start FROM main.partitions p "
        "WHERE p.queue_id = (SELECT queue_id FROM main.queues WHERE name = ?1) AND p.name = ?2");
  }
  impl::Statement& s = fingerprint_->reset().bind(1, queue).bind(2, partition);
  history::PartitionFingerprint f;
  fingerprinted_row_ = -1;
  if (s.step()) {
    fingerprinted_row_ = s.column_int(0);
    f.last_offset = s.column_int(1);
    f.txns_start = s.column_int(2);
  }
  s.reset();
  // After the statement: it settled what came before it (a read changes nothing).
  const WrittenRows rows = read();
  f.segments = rows.segments;
  f.sidecar_rows = rows.sidecar_rows;
  log_->committed_partitions.clear();
  log_->partitions_overflowed = false;
  fingerprinted_queue_ = queue;
  fingerprinted_partition_ = partition;
  fingerprinted_ = f;
  return f;
}

history::PartitionFingerprint WriteCounter::fingerprint_after(const std::string& queue, const std::string& partition) {
  const WrittenRows rows = read();
  const bool exact = fingerprinted_row_ >= 0 && queue == fingerprinted_queue_ && partition == fingerprinted_partition_ &&
                     !log_->partitions_overflowed &&
                     std::all_of(log_->committed_partitions.begin(), log_->committed_partitions.end(),
                                 [](const Log::PartitionWrite& w) { return w.updated; });
  if (!exact) return fingerprint(queue, partition);
  history::PartitionFingerprint f = fingerprinted_;
  for (const Log::PartitionWrite& w : log_->committed_partitions) {
    if (w.row != fingerprinted_row_) continue;
    f.last_offset = w.last_offset;
    f.txns_start = w.txns_start;
  }
  f.segments = rows.segments;
  f.sidecar_rows = rows.sidecar_rows;
  return f;
}

}  // namespace qdt::sim
