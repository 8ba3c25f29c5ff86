#include "sim/cli/sql_flags.h"

namespace qdt::sim {

void add_sql_flags(CLI::App& cmd, PgSqlChoice& choice) {
  cmd.add_option("--sql-dir", choice.dir,
                 "With --storage postgres: load this implementation of the SQL interface instead of qdt's own, laid "
                 "out as Queen's server/sql (schema.sql, then procedures/*.sql in name order)");
  cmd.add_option("--sql", choice.files,
                 "With --storage postgres: load these SQL files, in the order given, instead of qdt's own "
                 "(repeat the flag for each file)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--sql-adapter", choice.adapter, "How qdt calls the SQL (only queen-log-v1)")
      ->capture_default_str();
}

std::optional<std::string> use_sql_flags(PgSqlChoice& choice, bool on_postgres) {
  if (!choice.foreign() && choice.adapter == kQueenLogAdapter) return std::nullopt;
  if (!on_postgres) return std::string("--sql-dir, --sql and --sql-adapter choose PostgreSQL's SQL: they need --storage postgres");
  if (auto problem = check_pg_sql_choice(choice)) return problem;
  choose_pg_sql(choice);
  return std::nullopt;
}

}  // namespace qdt::sim
