#include "impl/storage/postgres/pg_connection.h"

#include <cassert>

namespace qdt::impl::postgres {

PgConnPtr connect_blocking(const std::string& base, const std::string& dbname) {
  // The first dbname is expanded as a conninfo string or URL; the second only names the database.
  const char* keywords[] = {"dbname", "dbname", "options", "client_encoding", nullptr};
  const char* values[] = {base.c_str(), dbname.c_str(), kSessionOptions, "UTF8", nullptr};
  PgConnPtr conn(PQconnectdbParams(keywords, values, 1));
  if (!conn) throw ClusterError("postgres: out of memory connecting to database " + dbname);
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    throw ClusterError("postgres: cannot connect to database " + dbname + ": " + PQerrorMessage(conn.get()));
  }
  return conn;
}

PgResultPtr exec_blocking(PGconn* conn, const std::string& sql, const std::string& what) {
  assert(conn != nullptr);
  PgResultPtr last;
  if (!PQsendQuery(conn, sql.c_str())) {
    throw ClusterError("postgres: " + what + ": " + PQerrorMessage(conn));
  }
  std::string error;
  while (PGresult* r = PQgetResult(conn)) {
    PgResultPtr result(r);
    const ExecStatusType status = PQresultStatus(r);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && error.empty()) {
      const char* line = PQresultErrorField(r, PG_DIAG_CONTEXT);
      error = PQresultErrorMessage(r);
      if (line) error += std::string(" (") + line + ")";
    }
    last = std::move(result);
  }
  if (!error.empty()) throw ClusterError("postgres: " + what + ": " + error);
  return last;
}

std::string quote_identifier(PGconn* conn, const std::string& name) {
  char* quoted = PQescapeIdentifier(conn, name.data(), name.size());
  if (!quoted) throw ClusterError(std::string("postgres: cannot quote an identifier: ") + PQerrorMessage(conn));
  std::string out(quoted);
  PQfreemem(quoted);
  return out;
}

}  // namespace qdt::impl::postgres
