#pragma once
// Builds a user's Rust `dedup.rs` into a `queen-cache-v1` library
// (docs/semantics.md §10.3, docs/cache-abi.md): qdt writes a shim crate of
// its own around the file, included unchanged, with a stub `tracing` crate,
// and builds it with `rustc` into a folder of built modules keyed by the
// file's content, so a campaign builds once and its workers (and later
// campaigns) share the build. A build lands by rename: parallel builders
// of one file race harmlessly.
#include <optional>
#include <string>
#include <variant>

namespace qdt::sim {

// The `rustc` qdt builds with: $QDT_RUSTC when set, else Debian's
// /usr/bin/rustc (what CI and users have), else the first on PATH; empty
// when none is found.
std::string rustc_for_cache_modules();

// Where built modules live: $QDT_CACHE_MODULES_DIR, else
// $XDG_CACHE_HOME/qdt/cache-modules, else $HOME/.cache/qdt/cache-modules.
std::string cache_modules_dir();

// Sets `file` to the dedup.rs PATH names (absolute): PATH itself when it is
// a file, PATH/server/src/dedup.rs when it is a checkout's root; else
// answers why neither exists.
std::optional<std::string> locate_dedup_rs(const std::string& path, std::string& file);

struct BuiltModule {
  std::string library;       // absolute path of the .so
  std::string content_hash;  // xxh3-128 of the dedup.rs bytes (32 hex digits)
};

// The library built from the dedup.rs at `file` (absolute), built now when
// the folder lacks it; or why it cannot be: no rustc (the package to
// install), rustc's first error, or another interface version.
std::variant<BuiltModule, std::string> build_cache_module(const std::string& file);

}  // namespace qdt::sim
