#pragma once
// --sql-dir, --sql and --sql-adapter (docs/semantics.md §9.4): which
// implementation of the SQL interface a PostgreSQL run loads, on every
// command that takes --storage.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "sim/world/pg_sql_choice.h"

namespace qdt::sim {

void add_sql_flags(CLI::App& cmd, PgSqlChoice& choice);

// Checks the flags after parsing and makes them the process's choice
// (choose_pg_sql); the reason when they cannot be used: SQL without
// --storage postgres, or what check_pg_sql_choice() refuses.
std::optional<std::string> use_sql_flags(PgSqlChoice& choice, bool on_postgres);

}  // namespace qdt::sim
