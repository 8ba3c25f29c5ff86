#pragma once
// Which dedup cache this process's brokers run (docs/semantics.md §10):
// qdt's own, or a user's, named on the command line with --cache-impl PATH
// (a Rust dedup.rs, built by cache_shim.h) or --cache-lib FILE.so (any
// language, the C ABI of docs/cache-abi.md), driven by --cache-caller.
// Chosen, built and loaded once, before any seed runs; a forked campaign
// worker inherits the loaded library. Printed commands carry the choice
// (storage_flags), so a failure found on a user's cache replays on it.
#include <memory>
#include <optional>
#include <string>

#include "impl/broker/foreign_cache_caller.h"
#include "sim/world/cache_library.h"

namespace qdt::sim {

struct CacheModuleFlags {
  std::string impl;               // --cache-impl
  std::string lib;                // --cache-lib
  std::string caller = "shipped"; // --cache-caller
};

struct CacheModule {
  std::string named;          // the path as resolved: the dedup.rs or the .so
  bool built = false;         // from --cache-impl
  std::string content_hash;   // xxh3-128 of the dedup.rs (or the .so) bytes
  impl::CacheCaller caller = impl::CacheCaller::shipped;
  std::shared_ptr<const CacheLibrary> library;
};

// Resolves, builds and loads what the flags name (nothing when they name
// no module); nullopt when it worked, else the reason (exit 2).
std::optional<std::string> choose_cache_module(const CacheModuleFlags& flags);
// nullptr: qdt's own cache.
const CacheModule* chosen_cache_module();
// The content hash of the chosen module; empty for qdt's own cache.
std::string chosen_cache_content_hash();
// "cache module PATH (xxh128 HASH), CALLER caller": what a failure report
// names; empty for qdt's own cache.
std::string cache_module_note();
// " --cache-impl '/abs/dedup.rs'" (plus " --cache-caller reference" when
// that ran), shell-quoted; empty for qdt's own cache.
std::string cache_module_flags();

}  // namespace qdt::sim
