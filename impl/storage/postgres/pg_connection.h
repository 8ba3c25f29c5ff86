#pragma once
// Blocking libpq connections for setup work outside any run: creating
// databases, loading SQL, resets, the lock probe. Statements of a run go
// through Session (session.h) instead.
#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace qdt::impl::postgres {

// The server could not be started, reached or prepared; the message says why.
// The command line maps it to exit 2.
class ClusterError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PgConnDeleter {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
using PgConnPtr = std::unique_ptr<PGconn, PgConnDeleter>;
struct PgResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using PgResultPtr = std::unique_ptr<PGresult, PgResultDeleter>;

// The search_path every session runs with: qdt_clock's functions shadow the
// built-in clocks, and pg_catalog must come after it or the built-ins win.
inline constexpr const char* kSessionOptions = "-c search_path=qdt_clock,pg_catalog,public";

// `base` is a conninfo string or URL naming the server; `dbname` overrides
// its database. Throws ClusterError with libpq's reason. The server's
// NOTICEs and WARNINGs on it are counted (server_notices()), never printed.
PgConnPtr connect_blocking(const std::string& base, const std::string& dbname);

// What the server said besides answers, on every connection of this process
// (docs/semantics.md §9.4: the run's data, never echoed raw).
struct ServerNotices {
  int64_t notices = 0;   // NOTICE, INFO, LOG, DEBUG
  int64_t warnings = 0;  // WARNING
  // The first distinct messages, "SEVERITY: text (in SOURCE)", at most kKept.
  static constexpr size_t kKept = 16;
  std::vector<std::string> first;
};
const ServerNotices& server_notices();

// Attributes what the server says on `conn` to `*source` as it reads then
// (a file and line being loaded, the statement a session runs); null: to
// nothing. `source` must outlive the connection or the next call.
void attribute_notices(PGconn* conn, const std::string* source);

// Runs `sql` (one or several statements, no parameters) and returns the last
// result. Throws ClusterError naming `what` and the server's message.
PgResultPtr exec_blocking(PGconn* conn, const std::string& sql, const std::string& what);

// `name` quoted as an SQL identifier, whatever it contains.
std::string quote_identifier(PGconn* conn, const std::string& name);
// `text` as an SQL string literal (PQescapeLiteral).
std::string quote_literal(PGconn* conn, const std::string& text);

}  // namespace qdt::impl::postgres
