#pragma once
// A shared library implementing the C ABI `queen-cache-v1`
// (sim/world/queen_cache_v1.h, docs/cache-abi.md), opened once per process
// and never closed: every broker of every run makes its instances from it.
// The library is untrusted input: a missing symbol or another ABI version
// is refused with the reason before anything runs.
#include <cstdint>
#include <memory>
#include <string>
#include <variant>

#include "impl/broker/foreign_cache.h"
#include "sim/world/queen_cache_v1.h"

namespace qdt::sim {

class CacheLibrary {
 public:
  // The library at `path` (absolute), or why it cannot be used.
  static std::variant<std::shared_ptr<const CacheLibrary>, std::string> open(const std::string& path);

  // A fresh cache (DedupCache::new(max_mb, enabled)), as the broker's port.
  // Throws impl::ForeignCacheError when the library cannot make one.
  std::unique_ptr<impl::ForeignCache> make(uint64_t max_mb, bool enabled) const;

  struct Calls {
    uint32_t (*abi_version)();
    queen_cache* (*create)(uint64_t, int32_t);
    void (*destroy)(queen_cache*);
    int32_t (*expire)(queen_cache*, const char*, size_t, int64_t, int64_t);
    int32_t (*needs_hydration)(queen_cache*, const char*, size_t, int64_t, int32_t*, int64_t*, int64_t*);
    int32_t (*hydrate)(queen_cache*, const char*, size_t, const queen_cache_row*, size_t, int64_t, int64_t, int64_t);
    int32_t (*verified_for_push)(queen_cache*, const char*, size_t, const uint8_t*, size_t, int64_t, int32_t*,
                                 int64_t*, size_t*);
    int32_t (*on_push_committed)(queen_cache*, const char*, size_t, int64_t, const uint8_t*, size_t, int64_t);
  };
  const Calls& calls() const { return calls_; }
  const std::string& path() const { return path_; }

 private:
  CacheLibrary(std::string path, Calls calls) : path_(std::move(path)), calls_(calls) {}
  std::string path_;
  Calls calls_;
};

}  // namespace qdt::sim
