#include "impl/storage/postgres/pg_connection.h"

#include <algorithm>
#include <cassert>

namespace qdt::impl::postgres {

namespace {

ServerNotices g_notices;

void count_notice(void* source_arg, const PGresult* result) {
  const auto* source = static_cast<const std::string*>(source_arg);
  const char* severity = PQresultErrorField(result, PG_DIAG_SEVERITY_NONLOCALIZED);
  const std::string level = severity ? severity : "NOTICE";
  (level == "WARNING" ? g_notices.warnings : g_notices.notices) += 1;
  const char* text = PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
  const std::string line =
      level + ": " + (text ? text : "") + (source && !source->empty() ? " (in " + *source + ")" : "");
  if (g_notices.first.size() < ServerNotices::kKept &&
      std::find(g_notices.first.begin(), g_notices.first.end(), line) == g_notices.first.end()) {
    g_notices.first.push_back(line);
  }
}

}  // namespace

const ServerNotices& server_notices() { return g_notices; }

void attribute_notices(PGconn* conn, const std::string* source) {
  PQsetNoticeReceiver(conn, count_notice, const_cast<std::string*>(source));
}

PgConnPtr connect_blocking(const std::string& base, const std::string& dbname) {
  // The first dbname is expanded as a conninfo string or URL; the second only names the database.
  const char* keywords[] = {"dbname", "dbname", "options", "client_encoding", nullptr};
  const char* values[] = {base.c_str(), dbname.c_str(), kSessionOptions, "UTF8", nullptr};
  PgConnPtr conn(PQconnectdbParams(keywords, values, 1));
  if (!conn) throw ClusterError("postgres: out of memory connecting to database " + dbname);
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    throw ClusterError("postgres: cannot connect to database " + dbname + ": " + PQerrorMessage(conn.get()));
  }
  PQsetNoticeReceiver(conn.get(), count_notice, nullptr);
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

namespace {

// PQescapeIdentifier or PQescapeLiteral, into a std::string.
std::string escaped(PGconn* conn, const std::string& text, char* (*escape)(PGconn*, const char*, size_t),
                    const char* what) {
  char* quoted = escape(conn, text.data(), text.size());
  if (!quoted) throw ClusterError(std::string("postgres: cannot quote ") + what + ": " + PQerrorMessage(conn));
  std::string out(quoted);
  PQfreemem(quoted);
  return out;
}

}  // namespace

std::string quote_identifier(PGconn* conn, const std::string& name) {
  return escaped(conn, name, PQescapeIdentifier, "an identifier");
}

std::string quote_literal(PGconn* conn, const std::string& text) {
  return escaped(conn, text, PQescapeLiteral, "a literal");
}

}  // namespace qdt::impl::postgres
