#include "sim/write_counter.h"

#include <cassert>
#include <string>
#include <utility>

namespace qdt::sim {
namespace {

// Temporary objects live in the connection's temporary database, kept in
// memory so that file worlds open no extra file through the power-loss VFS.
// One transaction: the table exists only with every trigger.
std::string install_script() {
  std::string sql =
      "PRAGMA temp_store = MEMORY; BEGIN; "
      "CREATE TEMP TABLE qdt_written (segments INTEGER NOT NULL, sidecar_rows INTEGER NOT NULL); "
      "INSERT INTO qdt_written VALUES (0, 0); ";
  const std::pair<const char*, const char*> tables[] = {{"segments", "segments"}, {"log_txns", "sidecar_rows"}};
  for (const auto& [table, column] : tables) {
    for (const char* event : {"INSERT", "UPDATE", "DELETE"}) {
      sql += std::string("CREATE TEMP TRIGGER qdt_written_") + table + "_" + event + " AFTER " + event + " ON main." +
             table + " BEGIN UPDATE qdt_written SET " + column + " = " + column + " + 1; END; ";
    }
  }
  return sql + "COMMIT;";
}

}  // namespace

void install_write_counter(impl::Storage& storage) {
  sqlite3* db = storage.database().handle();
  // Installed (the script is one transaction: the table comes with its triggers).
  if (sqlite3_table_column_metadata(db, "temp", "qdt_written", "sidecar_rows", nullptr, nullptr, nullptr, nullptr,
                                    nullptr) == SQLITE_OK) {
    return;
  }
  assert(!storage.in_transaction());
  try {
    storage.database().exec(install_script());
  } catch (const impl::StorageError&) {
    if (storage.in_transaction()) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

WrittenRows WriteCounter::read() {
  if (!read_) {
    read_ = std::make_unique<impl::Statement>(storage_.database().handle(),
                                              "SELECT segments, sidecar_rows FROM temp.qdt_written");
  }
  impl::Statement& s = read_->reset();
  const bool has = s.step();
  assert(has && "install_write_counter was not called on this connection");
  WrittenRows rows{s.column_int(0), s.column_int(1)};
  s.reset();
  return rows;
}

}  // namespace qdt::sim

namespace qdt::sim {

history::PartitionFingerprint WriteCounter::fingerprint(const std::string& queue, const std::string& partition) {
  if (!fingerprint_) {
    fingerprint_ = std::make_unique<impl::Statement>(
        storage_.database().handle(),
        // A join the planner runs as two index searches (a derived table
        // would be materialized on every read).
        "SELECT coalesce(p.last_offset, -1), coalesce(p.txns_start, 0), w.segments, w.sidecar_rows "
        "FROM temp.qdt_written w LEFT JOIN main.partitions p "
        "ON p.queue_id = (SELECT queue_id FROM main.queues WHERE name = ?1) AND p.name = ?2");
  }
  impl::Statement& s = fingerprint_->reset().bind(1, queue).bind(2, partition);
  const bool has = s.step();
  assert(has && "install_write_counter was not called on this connection");
  history::PartitionFingerprint f{s.column_int(0), s.column_int(1), s.column_int(2), s.column_int(3)};
  s.reset();
  return f;
}

}  // namespace qdt::sim
