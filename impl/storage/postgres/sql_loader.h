#pragma once
// Loading an implementation of the SQL interface (docs/semantics.md §9.4): a folder laid
// out as Queen's server/sql (schema.sql if present, then procedures/*.sql in
// file-name order), or files given one by one; each file statement by
// statement in autocommit, as `psql -f` would, so a statement that cannot
// run inside a transaction block (CREATE INDEX CONCURRENTLY) loads too.
#include <string>
#include <vector>

#include "impl/storage/postgres/pg_connection.h"
#include "impl/storage/postgres/sql_text.h"

namespace qdt::impl::postgres {

struct SqlStatement {
  std::string text;  // without the terminating semicolon
  int64_t line = 1;  // where the statement starts in its file (1-based)
};

// Splits at top-level semicolons, as psql does: not inside quotes, quoted
// identifiers, dollar quotes or comments. Statements that are only
// whitespace and comments are dropped.
std::vector<SqlStatement> split_statements(const std::string& text);

// The files of `dir` in load order. Throws ClusterError when it holds none.
std::vector<SqlFile> read_sql_dir(const std::string& dir);
// The files at `paths`, in that order, named by their paths.
std::vector<SqlFile> read_sql_files(const std::vector<std::string>& paths);

// The search_path while loading: unqualified objects are created in public
// (not in qdt_clock, the first schema of a session's path), and a column
// DEFAULT now() binds to the virtual clock.
inline constexpr const char* kLoadSearchPath = "public, qdt_clock, pg_catalog";

// The function or procedure a CREATE [OR REPLACE] FUNCTION|PROCEDURE
// statement defines, unqualified and in lower case ("" for any other
// statement): leading comments are skipped, a quoted name kept as written.
std::string defined_function(const std::string& statement);

// Runs every statement of `files` in order, each in autocommit, under
// kLoadSearchPath. Throws ClusterError naming the file, the line and
// PostgreSQL's message — unless `called` is given and the statement only
// defines a function not in it (one the adapter never calls): then the
// statement is skipped and the same text comes back as a warning.
std::vector<std::string> apply_sql(PGconn* conn, const std::vector<SqlFile>& files,
                                   const std::vector<std::string>* called = nullptr);

}  // namespace qdt::impl::postgres
