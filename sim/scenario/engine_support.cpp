#include "sim/scenario/engine_support.h"

#include <cstring>

#include "impl/storage/postgres/pg_backend.h"
#include "sim/scenario/step_kinds.h"
#include "sim/world/pg_sql_choice.h"

namespace qdt::sim {
namespace {

bool has_step(const std::vector<Step>& steps, const char* kind) {
  for (const Step& s : steps) {
    if (s.kind != nullptr && std::strcmp(s.kind->name, kind) == 0) return true;
    if (has_step(s.children, kind)) return true;
  }
  return false;
}

}  // namespace

std::optional<StorageEngineKind> parse_storage_engine(const std::string& name) {
  if (name == "sqlite") return StorageEngineKind::sqlite;
  if (name == "postgres") return StorageEngineKind::postgres;
  return std::nullopt;
}

std::string storage_engine_name(StorageEngineKind engine) {
  return engine == StorageEngineKind::postgres ? "postgres" : "sqlite";
}

std::string engine_display_name(StorageEngineKind engine) {
  return engine == StorageEngineKind::postgres ? "PostgreSQL" : "SQLite";
}

std::optional<std::string> engine_refuses_variant(StorageEngineKind engine, impl::Variant variant) {
  if (engine != StorageEngineKind::postgres) {
    // Its change is to row locks, and SQLite's one database write lock has none.
    if (variant == impl::Variant::bundle_unordered_locks) {
      return "variant bundle-unordered-locks changes the order a bundle takes its partition rows in, and SQLite has "
             "no row locks and no bundles: run it with --storage postgres";
    }
    if (variant != impl::Variant::no_row_lock) return std::nullopt;
    return "variant no-row-lock drops the partition row's lock, and SQLite has no row locks (one database write "
           "lock serializes every push): run it with --storage postgres";
  }
  if (!impl::postgres::PgBackend::supports(variant)) {
    return "variant " + impl::variant_name(variant) + " needs SQL of its own, which the PostgreSQL engine lacks";
  }
  if (pg_sql_choice().foreign() && impl::postgres::PgBackend::has_variant_sql(variant)) {
    return "variant " + impl::variant_name(variant) +
           " replaces a function of qdt's own SQL, so it cannot run on the SQL given with --sql-dir or --sql";
  }
  return std::nullopt;
}

std::optional<std::string> engine_refuses(StorageEngineKind engine, const Scenario& scenario, impl::Variant variant) {
  const impl::Variant chosen = variant != impl::Variant::none ? variant : scenario.world.variant;
  if (scenario.world.bundles && engine == StorageEngineKind::sqlite) {
    // SQLite's one write lock makes a bundle a plain sequence, and its
    // write counter cannot tell which partition a bundle's rows went to.
    return "world.bundles needs per-partition row locks: run it with --storage postgres";
  }
  if (scenario.world.bundles && chosen == impl::Variant::probe_outside_lock) {
    return "variant probe-outside-lock probes each segment in a transaction of its own, which a bundle does not have";
  }
  if (engine == StorageEngineKind::sqlite) {
    return engine_refuses_variant(engine, variant != impl::Variant::none ? variant : scenario.world.variant);
  }
  // Power loss is the SQLite VFS's business (docs/semantics.md §9.1).
  if (has_step(scenario.steps, "crash_storage")) return "crash_storage (power loss) needs SQLite's file storage";
  if (scenario.world.storage.path != ":memory:") {
    return "world.storage.path names a file: file storage is SQLite's";
  }
  if (!scenario.nul_name_path.empty()) {
    // The path holds the NUL too: shown JSON-escaped, never raw.
    const std::string shown = nlohmann::json(scenario.nul_name_path).dump();
    return shown.substr(1, shown.size() - 2) +
           ": a name with a NUL character, which PostgreSQL's text cannot hold (it would end the name there and "
           "merge it with another)";
  }
  return engine_refuses_variant(engine, variant != impl::Variant::none ? variant : scenario.world.variant);
}

}  // namespace qdt::sim
