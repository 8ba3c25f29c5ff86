#pragma once
// The port through which the broker drives a dedup cache it did not build
// (docs/semantics.md §10, docs/cache-abi.md): the five calls of Queen's
// storage-free `DedupCache`, one instance per broker. The simulator fills
// it with a loaded module (sim/world/cache_library.h); the broker cannot
// tell what language the cache is written in. Every time is passed in; the
// cache reads no clock. Called only from the world's one thread.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "impl/hash.h"
#include "impl/storage/storage_types.h"

namespace qdt::impl {

// The module broke its contract at run time (a Rust panic, an answer out of
// range): the run ends with this reason, as an engine error does.
class ForeignCacheError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct HydrationNeed {
  enum class Kind : uint8_t { none, full, span };
  Kind kind = Kind::none;
  int64_t from = 0;  // span only: offsets, inclusive
  int64_t to = 0;
};

struct PushCheck {
  bool local_duplicate = false;  // some hashes are held: a hint, never a verdict
  int64_t verified = -1;         // otherwise the watermark to send (-1: cannot vouch)
};

class ForeignCache {
 public:
  virtual ~ForeignCache() = default;
  virtual void expire(const std::string& pid, int64_t window_ms, int64_t now_ms) = 0;
  virtual HydrationNeed needs_hydration(const std::string& pid, int64_t now_ms) = 0;
  // Rows as log_txns holds them, in offset order.
  virtual void hydrate(const std::string& pid, const std::vector<SidecarRow>& rows, int64_t window_start_ms,
                       int64_t current_last_offset, int64_t now_ms) = 0;
  virtual PushCheck verified_for_push(const std::string& pid, const std::vector<Hash128>& hashes, int64_t now_ms) = 0;
  virtual void on_push_committed(const std::string& pid, int64_t base, const std::vector<Hash128>& hashes,
                                 int64_t now_ms) = 0;
  // The interface has no eviction or kill switch of its own: a broker that
  // forgets (crash, lost connection, eviction) or switches the cache takes a
  // fresh instance, created with `enabled`.
  virtual void renew(bool enabled) = 0;
};

}  // namespace qdt::impl
