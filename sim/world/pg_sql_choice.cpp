#include "sim/world/pg_sql_choice.h"

#include <filesystem>

#include "impl/storage/postgres/sql_loader.h"
#include "sim/base/content_hash.h"
#include "sim/base/shell_word.h"
#include "sim/world/cache_module_choice.h"

namespace qdt::sim {
namespace {

PgSqlChoice& chosen() {
  static PgSqlChoice choice;
  return choice;
}

}  // namespace

std::optional<std::string> check_pg_sql_choice(PgSqlChoice& choice) {
  namespace fs = std::filesystem;
  if (choice.adapter != kQueenLogAdapter) {
    return "--sql-adapter " + choice.adapter + ": the only adapter is " + kQueenLogAdapter;
  }
  if (!choice.dir.empty() && !choice.files.empty()) return "--sql-dir and --sql both name the SQL: give one";
  std::error_code error;
  if (!choice.dir.empty()) {
    if (!fs::is_directory(choice.dir, error)) return "--sql-dir " + choice.dir + ": not a folder";
    choice.dir = fs::absolute(choice.dir, error).lexically_normal().string();
  }
  for (std::string& file : choice.files) {
    if (!fs::is_regular_file(file, error)) return "--sql " + file + ": not a file";
    file = fs::absolute(file, error).lexically_normal().string();
  }
  return std::nullopt;
}

void choose_pg_sql(PgSqlChoice choice) { chosen() = std::move(choice); }

const PgSqlChoice& pg_sql_choice() { return chosen(); }

std::vector<impl::postgres::SqlFile> read_chosen_sql() {
  const PgSqlChoice& c = chosen();
  if (!c.dir.empty()) return impl::postgres::read_sql_dir(c.dir);
  if (!c.files.empty()) return impl::postgres::read_sql_files(c.files);
  return {};
}

std::string chosen_sql_content_hash() {
  if (!chosen().foreign()) return "";
  // The texts in load order, each with its length first so no two splits
  // join alike; not the paths, so the same SQL moved elsewhere still matches.
  std::string joined;
  for (const impl::postgres::SqlFile& file : read_chosen_sql()) joined += std::to_string(file.text.size()) + ":" + file.text;
  return content_hash_hex(joined);
}

std::string storage_flags(StorageEngineKind engine) {
  if (engine != StorageEngineKind::postgres) return cache_module_flags();
  const PgSqlChoice& c = chosen();
  std::string out = " --storage postgres";
  if (!c.dir.empty()) out += " --sql-dir " + shell_word(c.dir);
  for (const std::string& file : c.files) out += " --sql " + shell_word(file);
  return out + cache_module_flags();
}

}  // namespace qdt::sim
