#include "sim/world/cache_shim.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "sim/base/content_hash.h"

extern char** environ;

namespace qdt::sim {
namespace {

namespace fs = std::filesystem;

// The stub `tracing` crate: the module only logs through its macros, and a
// log line changes nothing qdt judges.
constexpr const char* kTracingStub = R"rust(// Written by qdt: a stub of the `tracing` crate (docs/cache-abi.md).
#[macro_export] macro_rules! warn { ($($t:tt)*) => {{}}; }
#[macro_export] macro_rules! error { ($($t:tt)*) => {{}}; }
#[macro_export] macro_rules! info { ($($t:tt)*) => {{}}; }
#[macro_export] macro_rules! debug { ($($t:tt)*) => {{}}; }
#[macro_export] macro_rules! trace { ($($t:tt)*) => {{}}; }
)rust";

// The shim: queen-cache-v1 (sim/world/queen_cache_v1.h) around the user's
// DedupCache, every call guarded so a panic becomes a status, never unwinds into C++.
constexpr const char* kShim = R"rust(// Written by qdt: the C ABI queen-cache-v1 around dedup.rs (docs/cache-abi.md).
#![allow(dead_code, unused)]
#[path = "dedup.rs"]
mod dedup;
use dedup::{DedupCache, HydrationNeed, PushCheck};
use std::os::raw::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub struct QueenCache(DedupCache);

#[repr(C)]
pub struct QueenCacheRow { base_offset: i64, end_offset: i64, created_ms: i64, hashes: *const u8, hashes_len: usize }

unsafe fn text<'a>(p: *const c_char, n: usize) -> Option<&'a str> {
    if n == 0 { return Some(""); }
    std::str::from_utf8(std::slice::from_raw_parts(p as *const u8, n)).ok()
}
unsafe fn bytes<'a>(p: *const u8, n: usize) -> &'a [u8] {
    if n == 0 { &[] } else { std::slice::from_raw_parts(p, n) }
}
unsafe fn hashes<'a>(p: *const u8, n: usize) -> &'a [[u8; 16]] {
    if n == 0 { &[] } else { std::slice::from_raw_parts(p as *const [u8; 16], n) }
}
fn guard<F: FnOnce() -> i32>(f: F) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) { Ok(status) => status, Err(_) => 1 }
}

#[no_mangle]
pub extern "C" fn queen_cache_abi_version() -> u32 { 1 }

#[no_mangle]
pub extern "C" fn queen_cache_create(max_mb: u64, enabled: i32) -> *mut QueenCache {
    match catch_unwind(|| Box::new(QueenCache(DedupCache::new(max_mb as usize, enabled != 0)))) {
        Ok(cache) => Box::into_raw(cache),
        Err(_) => std::ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn queen_cache_destroy(cache: *mut QueenCache) {
    if !cache.is_null() { let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(cache)))); }
}

#[no_mangle]
pub unsafe extern "C" fn queen_cache_expire(cache: *mut QueenCache, pid: *const c_char, pid_len: usize,
                                            window_ms: i64, now_ms: i64) -> i32 {
    guard(|| {
        let pid = match text(pid, pid_len) { Some(p) => p, None => return 2 };
        (*cache).0.expire(pid, window_ms, now_ms);
        0
    })
}

#[no_mangle]
pub unsafe extern "C" fn queen_cache_needs_hydration(cache: *mut QueenCache, pid: *const c_char, pid_len: usize,
                                                     now_ms: i64, need: *mut i32, from: *mut i64, to: *mut i64) -> i32 {
    guard(|| {
        let pid = match text(pid, pid_len) { Some(p) => p, None => return 2 };
        match (*cache).0.needs_hydration(pid, now_ms) {
            None => *need = 0,
            Some(HydrationNeed::Full) => *need = 1,
            Some(HydrationNeed::Span { from: f, to: t }) => { *need = 2; *from = f; *to = t; }
        }
        0
    })
}

#[no_mangle]
pub unsafe extern "C" fn queen_cache_hydrate(cache: *mut QueenCache, pid: *const c_char, pid_len: usize,
                                             rows: *const QueenCacheRow, row_count: usize, window_start_ms: i64,
                                             current_last_offset: i64, now_ms: i64) -> i32 {
    guard(|| {
        let pid = match text(pid, pid_len) { Some(p) => p, None => return 2 };
        let given = if row_count == 0 { &[][..] } else { std::slice::from_raw_parts(rows, row_count) };
        let rows: Vec<(i64, i64, i64, Vec<u8>)> = given.iter()
            .map(|r| (r.base_offset, r.end_offset, r.created_ms, bytes(r.hashes, r.hashes_len).to_vec()))
            .collect();
        (*cache).0.hydrate(pid, rows, window_start_ms, current_last_offset, now_ms);
        0
    })
}

#[no_mangle]
pub unsafe extern "C" fn queen_cache_verified_for_push(cache: *mut QueenCache, pid: *const c_char, pid_len: usize,
                                                       hash_bytes: *const u8, hash_count: usize, now_ms: i64,
                                                       check: *mut i32, verified: *mut i64,
                                                       duplicates: *mut usize) -> i32 {
    guard(|| {
        let pid = match text(pid, pid_len) { Some(p) => p, None => return 2 };
        match (*cache).0.verified_for_push(pid, hashes(hash_bytes, hash_count), now_ms) {
            PushCheck::Verified(w) => { *check = 0; *verified = w; }
            PushCheck::LocalDuplicate(held) => { *check = 1; *duplicates = held.len(); }
        }
        0
    })
}

#[no_mangle]
pub unsafe extern "C" fn queen_cache_on_push_committed(cache: *mut QueenCache, pid: *const c_char, pid_len: usize,
                                                       base: i64, hash_bytes: *const u8, hash_count: usize,
                                                       now_ms: i64) -> i32 {
    guard(|| {
        let pid = match text(pid, pid_len) { Some(p) => p, None => return 2 };
        (*cache).0.on_push_committed(pid, base, hashes(hash_bytes, hash_count), now_ms);
        0
    })
}
)rust";

bool executable(const fs::path& p) { return ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool read_bytes(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return static_cast<bool>(in) || in.eof();
}

// Runs argv (no shell: no user string is ever parsed by one) with stdout and
// stderr into `log`; the exit status, or -1 when it could not start.
int run(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  pid_t child = 0;
  const int started = posix_spawn(&child, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) return -1;
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// rustc's first error and where it points; a first error inside the shim
// (qdt's lib.rs calling the interface) means the file has another interface.
std::string first_error(const std::string& log, bool& in_shim) {
  std::istringstream lines(log);
  std::string line;
  std::string error;
  in_shim = false;
  while (std::getline(lines, line)) {
    if (error.empty()) {
      if (line.rfind("error", 0) == 0) error = line;
      continue;
    }
    if (const size_t at = line.find("--> "); at != std::string::npos) {
      const std::string where = line.substr(at + 4);
      in_shim = where.find("lib.rs:") != std::string::npos;
      const size_t slash = where.rfind('/');
      error += " (at " + (slash == std::string::npos ? where : where.substr(slash + 1)) + ")";
      break;
    }
  }
  return error;
}

}  // namespace

std::string rustc_for_cache_modules() {
  if (const std::string chosen = env("QDT_RUSTC"); !chosen.empty()) return executable(chosen) ? chosen : "";
  if (executable("/usr/bin/rustc")) return "/usr/bin/rustc";
  std::istringstream path(env("PATH"));
  std::string dir;
  while (std::getline(path, dir, ':')) {
    if (!dir.empty() && executable(fs::path(dir) / "rustc")) return (fs::path(dir) / "rustc").string();
  }
  return "";
}

std::string cache_modules_dir() {
  if (const std::string d = env("QDT_CACHE_MODULES_DIR"); !d.empty()) return d;
  if (const std::string x = env("XDG_CACHE_HOME"); !x.empty()) return (fs::path(x) / "qdt" / "cache-modules").string();
  const std::string home = env("HOME");
  return (fs::path(home.empty() ? fs::temp_directory_path().string() : home) / ".cache" / "qdt" / "cache-modules")
      .string();
}

std::optional<std::string> locate_dedup_rs(const std::string& path, std::string& file) {
  std::error_code error;
  if (fs::is_regular_file(path, error)) {
    file = fs::absolute(path, error).lexically_normal().string();
    return std::nullopt;
  }
  if (fs::is_directory(path, error)) {
    const fs::path inside = fs::path(path) / "server" / "src" / "dedup.rs";
    if (fs::is_regular_file(inside, error)) {
      file = fs::absolute(inside, error).lexically_normal().string();
      return std::nullopt;
    }
    return std::string("--cache-impl " + path + ": a folder without server/src/dedup.rs (name a dedup.rs or a checkout's root)");
  }
  return std::string("--cache-impl " + path + ": no such file or folder");
}

std::variant<BuiltModule, std::string> build_cache_module(const std::string& file) {
  std::string source;
  if (!read_bytes(file, source)) return "--cache-impl " + file + ": cannot be read";
  BuiltModule out;
  out.content_hash = content_hash_hex(source);
  // The shim's own text is part of the key: a newer qdt never loads an older build.
  const std::string shim_key = content_hash_hex(std::string(kShim) + kTracingStub).substr(0, 8);
  const fs::path dir = cache_modules_dir();
  const fs::path target = dir / (out.content_hash + "-" + shim_key + ".so");
  std::error_code error;
  out.library = target.string();
  if (fs::is_regular_file(target, error)) return out;  // built before, by this process's campaign or another

  const std::string rustc = rustc_for_cache_modules();
  if (rustc.empty()) {
    return std::string(env("QDT_RUSTC").empty() ? "no rustc found" : "QDT_RUSTC=" + env("QDT_RUSTC") + " is not an executable") +
           ": --cache-impl builds the module with rustc; install Debian's package `rustc` (apt-get install rustc)";
  }
  fs::create_directories(dir, error);
  std::string pattern = (dir / ".build-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return "cannot create a build folder in " + dir.string();
  const fs::path build = pattern;
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(p, ignored);
    }
  } cleanup{build};
  // The bytes hashed are the bytes built: the file is copied, unchanged.
  {
    std::ofstream(build / "dedup.rs", std::ios::binary) << source;
    std::ofstream(build / "lib.rs", std::ios::binary) << kShim;
    std::ofstream(build / "tracing.rs", std::ios::binary) << kTracingStub;
  }
  const std::string log = (build / "rustc.log").string();
  const std::string lib = (build / "libqdt_cache_shim.so").string();
  const std::string tracing = (build / "libtracing.rlib").string();
  int status = run({rustc, "--crate-type", "rlib", "--crate-name", "tracing", "--edition", "2021", "-O",
                    (build / "tracing.rs").string(), "-o", tracing},
                   log);
  if (status == 0) {
    status = run({rustc, "--crate-type", "cdylib", "--crate-name", "qdt_cache_shim", "--edition", "2021", "-O",
                  "--cap-lints", "allow", "--extern", "tracing=" + tracing, (build / "lib.rs").string(), "-o", lib},
                 log);
  }
  if (status != 0) {
    std::string text;
    read_bytes(log, text);
    bool in_shim = false;
    const std::string first = first_error(text, in_shim);
    if (status < 0) return rustc + " could not be started: install Debian's package `rustc` (apt-get install rustc)";
    if (in_shim) {
      return "--cache-impl " + file + ": does not match queen-cache-v1 (another interface version? " +
             "docs/cache-abi.md lists the signatures): rustc: " + first;
    }
    return "--cache-impl " + file + ": does not compile: rustc: " +
           (first.empty() ? "exit " + std::to_string(status) : first);
  }
  fs::rename(lib, target, error);  // atomic: a racing builder's identical file is replaced whole
  if (error) return "cannot place the built module at " + target.string() + ": " + error.message();
  return out;
}

}  // namespace qdt::sim
