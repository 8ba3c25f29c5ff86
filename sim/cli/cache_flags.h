#pragma once
// --cache-impl, --cache-lib and --cache-caller (docs/semantics.md §10): which
// dedup cache the brokers run and how they drive it, on every command that
// takes --storage.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "sim/world/cache_module_choice.h"

namespace qdt::sim {

void add_cache_flags(CLI::App& cmd, CacheModuleFlags& flags);

// Builds and loads what the flags name, before any seed runs; the reason,
// shown through the terminal filter, when it cannot (exit 2).
std::optional<std::string> use_cache_flags(const CacheModuleFlags& flags);

}  // namespace qdt::sim
