#pragma once
// Which implementation of the SQL interface this process's PostgreSQL
// engine loads (docs/semantics.md §9.4): qdt's own, or a user's, named on
// the command line with --sql-dir DIR (laid out as Queen's server/sql) or
// --sql FILE... (in that order). Chosen once, before the server starts; a
// forked campaign worker inherits the choice and loads the same files.
// Printed commands carry it, so a failure found on a user's SQL replays on
// that SQL.
#include <optional>
#include <string>
#include <vector>

#include "impl/storage/postgres/sql_text.h"
#include "sim/world/world_config.h"

namespace qdt::sim {

inline constexpr const char* kQueenLogAdapter = "queen-log-v1";

struct PgSqlChoice {
  std::string dir;                 // --sql-dir, absolute
  std::vector<std::string> files;  // --sql, absolute, in order
  std::string adapter = kQueenLogAdapter;
  bool foreign() const { return !dir.empty() || !files.empty(); }
  bool operator==(const PgSqlChoice&) const = default;
};

// Why the command line's choice cannot be used (nullopt: it can): both
// --sql-dir and --sql, an unknown adapter, a folder or file that is missing.
// The paths are made absolute in place.
std::optional<std::string> check_pg_sql_choice(PgSqlChoice& choice);

// Before start_pg_process(); once per process.
void choose_pg_sql(PgSqlChoice choice);
const PgSqlChoice& pg_sql_choice();

// The chosen files, read now: empty for qdt's own SQL. Throws
// impl::postgres::ClusterError when a file cannot be read.
std::vector<impl::postgres::SqlFile> read_chosen_sql();

// What names the chosen SQL's content, so that a journal can refuse a resume
// on other SQL without ever naming what to load: the xxh3-128 (32 hex
// digits) of the files' texts in load order; empty for qdt's own
// SQL. Throws impl::postgres::ClusterError when a file cannot be read.
std::string chosen_sql_content_hash();

// The flags that choose this engine and SQL again, shell-quoted, each with a
// leading space: "" for SQLite, " --storage postgres" for qdt's own SQL,
// " --storage postgres --sql-dir '/home/me/my sql'" for a user's folder, and
// " --sql A --sql B" for files (one flag each, so a scenario path after
// them is never taken for SQL); then, for either engine, the cache module's
// flags (cache_module_flags), the other half of the implementation run.
std::string storage_flags(StorageEngineKind engine);

}  // namespace qdt::sim
