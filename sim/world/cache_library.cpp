#include "sim/world/cache_library.h"

#include <dlfcn.h>

#include <cassert>
#include <cstring>

namespace qdt::sim {
namespace {

static_assert(sizeof(impl::Hash128) == 16, "hashes cross the ABI as packed 16-byte arrays");

// One instance; the handle it came from stays open for the process.
class LoadedCache final : public impl::ForeignCache {
 public:
  LoadedCache(const CacheLibrary::Calls& calls, uint64_t max_mb, bool enabled) : calls_(calls), max_mb_(max_mb) {
    create(enabled);
  }
  ~LoadedCache() override { calls_.destroy(cache_); }

  void expire(const std::string& pid, int64_t window_ms, int64_t now_ms) override {
    check(calls_.expire(cache_, pid.data(), pid.size(), window_ms, now_ms), "expire");
  }
  impl::HydrationNeed needs_hydration(const std::string& pid, int64_t now_ms) override {
    int32_t need = -1;
    impl::HydrationNeed out;
    check(calls_.needs_hydration(cache_, pid.data(), pid.size(), now_ms, &need, &out.from, &out.to), "needs_hydration");
    if (need < QUEEN_CACHE_NEED_NONE || need > QUEEN_CACHE_NEED_SPAN) {
      throw impl::ForeignCacheError("needs_hydration answered " + std::to_string(need) + ", not a queen_cache_need");
    }
    out.kind = static_cast<impl::HydrationNeed::Kind>(need);
    return out;
  }
  void hydrate(const std::string& pid, const std::vector<impl::SidecarRow>& rows, int64_t window_start_ms,
               int64_t current_last_offset, int64_t now_ms) override {
    std::vector<queen_cache_row> flat(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      const impl::SidecarRow& r = rows[i];
      flat[i] = {r.base_offset, r.end_offset, r.created_at_ms,
                 r.hashes.empty() ? nullptr : r.hashes.front().bytes.data(), r.hashes.size() * 16};
    }
    check(calls_.hydrate(cache_, pid.data(), pid.size(), flat.data(), flat.size(), window_start_ms,
                         current_last_offset, now_ms),
          "hydrate");
  }
  impl::PushCheck verified_for_push(const std::string& pid, const std::vector<impl::Hash128>& hashes,
                                    int64_t now_ms) override {
    int32_t kind = -1;
    impl::PushCheck out;
    size_t duplicates = 0;
    check(calls_.verified_for_push(cache_, pid.data(), pid.size(), bytes(hashes), hashes.size(), now_ms, &kind,
                                   &out.verified, &duplicates),
          "verified_for_push");
    if (kind != QUEEN_CACHE_VERIFIED && kind != QUEEN_CACHE_LOCAL_DUPLICATE) {
      throw impl::ForeignCacheError("verified_for_push answered " + std::to_string(kind) + ", not a queen_cache_check");
    }
    out.local_duplicate = kind == QUEEN_CACHE_LOCAL_DUPLICATE;
    return out;
  }
  void on_push_committed(const std::string& pid, int64_t base, const std::vector<impl::Hash128>& hashes,
                         int64_t now_ms) override {
    check(calls_.on_push_committed(cache_, pid.data(), pid.size(), base, bytes(hashes), hashes.size(), now_ms),
          "on_push_committed");
  }
  void renew(bool enabled) override {
    calls_.destroy(cache_);
    cache_ = nullptr;
    create(enabled);
  }

 private:
  static const uint8_t* bytes(const std::vector<impl::Hash128>& hashes) {
    return hashes.empty() ? nullptr : hashes.front().bytes.data();
  }
  static void check(int32_t status, const char* call) {
    if (status != 0) {
      throw impl::ForeignCacheError(std::string("the cache module failed in ") + call + " (status " +
                                    std::to_string(status) + ": a panic?)");
    }
  }
  void create(bool enabled) {
    cache_ = calls_.create(max_mb_, enabled ? 1 : 0);
    if (cache_ == nullptr) throw impl::ForeignCacheError("queen_cache_create answered no cache");
  }

  CacheLibrary::Calls calls_;  // a copy: the instance never outlives the process-long handle
  uint64_t max_mb_;
  queen_cache* cache_ = nullptr;
};

template <class F>
bool resolve(void* handle, const char* name, F& out, std::string& missing) {
  void* symbol = ::dlsym(handle, name);
  if (symbol == nullptr) {
    missing += missing.empty() ? name : std::string(", ") + name;
    return false;
  }
  out = reinterpret_cast<F>(symbol);
  return true;
}

}  // namespace

std::variant<std::shared_ptr<const CacheLibrary>, std::string> CacheLibrary::open(const std::string& path) {
  // RTLD_LOCAL: two modules in one process never see each other's symbols.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return path + ": cannot be loaded: " + (why ? why : "dlopen failed");
  }
  Calls c{};
  std::string missing;
  resolve(handle, "queen_cache_abi_version", c.abi_version, missing);
  resolve(handle, "queen_cache_create", c.create, missing);
  resolve(handle, "queen_cache_destroy", c.destroy, missing);
  resolve(handle, "queen_cache_expire", c.expire, missing);
  resolve(handle, "queen_cache_needs_hydration", c.needs_hydration, missing);
  resolve(handle, "queen_cache_hydrate", c.hydrate, missing);
  resolve(handle, "queen_cache_verified_for_push", c.verified_for_push, missing);
  resolve(handle, "queen_cache_on_push_committed", c.on_push_committed, missing);
  if (!missing.empty()) {
    ::dlclose(handle);
    return path + ": not a queen-cache-v1 library: it lacks " + missing + " (docs/cache-abi.md)";
  }
  if (const uint32_t version = c.abi_version(); version != QUEEN_CACHE_ABI_VERSION) {
    ::dlclose(handle);
    return path + ": implements ABI version " + std::to_string(version) + " (another interface version); qdt speaks " +
           "queen-cache-v" + std::to_string(QUEEN_CACHE_ABI_VERSION);
  }
  return std::shared_ptr<const CacheLibrary>(new CacheLibrary(path, c));
}

std::unique_ptr<impl::ForeignCache> CacheLibrary::make(uint64_t max_mb, bool enabled) const {
  return std::make_unique<LoadedCache>(calls_, max_mb, enabled);
}

}  // namespace qdt::sim
