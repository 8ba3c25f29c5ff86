#include "impl/storage/postgres/reset.h"

#include <cassert>

namespace qdt::impl::postgres {

const std::vector<std::string>& own_interface_tables() {
  static const std::vector<std::string> tables{"queen.qdt_acked", "queen.log_consumers", "queen.log_txns",
                                               "queen.log_segments", "queen.log_partitions", "queen.queues"};
  return tables;
}

void reset_database(PGconn* conn, const std::vector<std::string>& tables, bool truncate) {
  assert(!tables.empty());
  std::string sql = truncate ? "BEGIN; TRUNCATE " : "BEGIN; ";
  for (size_t i = 0; i < tables.size(); ++i) {
    const std::string& t = tables[i];
    const size_t dot = t.find('.');
    assert(dot != std::string::npos);
    const std::string quoted =
        quote_identifier(conn, t.substr(0, dot)) + "." + quote_identifier(conn, t.substr(dot + 1));
    sql += truncate ? (i ? ", " : "") + quoted : "DELETE FROM " + quoted + "; ";
  }
  sql += truncate ? "; " : "";
  sql += "UPDATE qdt_clock.clock SET now_us = 0; COMMIT";
  exec_blocking(conn, sql, "resetting the database");
}

DatabaseReset::DatabaseReset(std::vector<std::string> tables, int64_t truncate_every)
    : tables_(std::move(tables)), truncate_every_(truncate_every) {
  assert(!tables_.empty() && truncate_every_ >= 1);
}

void DatabaseReset::operator()(PGconn* conn) {
  ++resets_;
  reset_database(conn, tables_, resets_ % truncate_every_ == 0);
}

}  // namespace qdt::impl::postgres
