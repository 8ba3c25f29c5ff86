#pragma once
// What a storage engine cannot run, asked before anything runs
// (docs/semantics.md §9): PostgreSQL has no power-loss disk (file storage and
// crash_storage are SQLite's VFS), and some design variants need SQL of
// their own (impl::postgres::PgBackend::supports); SQLite has no row lock
// for no-row-lock to drop, and no bundles (world.bundles).
#include <optional>
#include <string>

#include "impl/variant.h"
#include "sim/scenario/scenario.h"
#include "sim/world/world_config.h"

namespace qdt::sim {

// "sqlite" | "postgres"; nullopt for any other name.
std::optional<StorageEngineKind> parse_storage_engine(const std::string& name);
std::string storage_engine_name(StorageEngineKind engine);
// "SQLite" | "PostgreSQL", for messages.
std::string engine_display_name(StorageEngineKind engine);

// Why `engine` cannot run a world with `variant` (nullopt: it can).
std::optional<std::string> engine_refuses_variant(StorageEngineKind engine, impl::Variant variant);
// Why `engine` cannot run `scenario` under `variant` (the command line's, or
// none: the scenario's own); nullopt: it can.
std::optional<std::string> engine_refuses(StorageEngineKind engine, const Scenario& scenario, impl::Variant variant);

}  // namespace qdt::sim
