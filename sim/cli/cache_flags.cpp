#include "sim/cli/cache_flags.h"

#include "reports/display_text.h"

namespace qdt::sim {

void add_cache_flags(CLI::App& cmd, CacheModuleFlags& flags) {
  cmd.add_option("--cache-impl", flags.impl,
                 "Run the brokers on this Rust dedup cache instead of qdt's own: a dedup.rs, or a checkout's root "
                 "holding server/src/dedup.rs (built with rustc, docs/cache-abi.md)");
  cmd.add_option("--cache-lib", flags.lib,
                 "Run the brokers on this shared library implementing the C ABI queen-cache-v1 (docs/cache-abi.md)");
  cmd.add_option("--cache-caller", flags.caller,
                 "How the broker drives a foreign cache: shipped (as Queen's fusion layer does) or reference (qdt's "
                 "own rules, docs/semantics.md §10.2)")
      ->capture_default_str();
}

std::optional<std::string> use_cache_flags(const CacheModuleFlags& flags) {
  // rustc's words and the user's paths are shown, never run: the one filter.
  if (auto problem = choose_cache_module(flags)) return reports::terminal_text(*problem);
  return std::nullopt;
}

}  // namespace qdt::sim
