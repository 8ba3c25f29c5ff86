#pragma once
// The broker's side of a foreign dedup cache (docs/semantics.md §10.2): per
// segment flush, expire, hydrate when needed, ask; after a `queued` commit,
// teach it. Two rule sets: `shipped` drives the module as Queen's fusion
// layer does (the broker's clock for expiry and the window start, 5 s of
// hydration slack); `reference` applies qdt's own rules of §2.11 wherever the
// interface can express them (expiry and the window start by the newest
// storage time seen), so a failure can be told the module's or its caller's.
// Either way a hit (LocalDuplicate) and every doubt send -1.
//
// A partition's id (`pid`) is queue + '\x1f' + partition: stable, and no
// queue or partition name may hold that byte (docs/semantics.md §2.1).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "impl/broker/dedup_cache.h"
#include "impl/broker/foreign_cache.h"
#include "impl/hash.h"

namespace qdt::impl {

enum class CacheCaller : uint8_t { shipped, reference };
const char* cache_caller_name(CacheCaller caller);
std::optional<CacheCaller> parse_cache_caller(std::string_view name);

class ForeignCacheCaller {
 public:
  // Hydration reads `created_at >= storage time - (window + slack)`.
  static constexpr int64_t kShippedHydrationSlackMs = 5000;

  ForeignCacheCaller(std::unique_ptr<ForeignCache> cache, CacheCaller rules, bool enabled);

  // Per segment flush of (queue, partition) with the window the broker
  // believes (> 0) and the broker's clock: the watermark to send. May
  // suspend the fiber (the hydration read); a crash then propagates.
  int64_t watermark(const std::string& queue, const std::string& partition, const std::vector<Hash128>& hashes,
                    int64_t now_ms, int64_t window_seconds, HydrationSource& source);
  // After a `queued` answer: storage's base offset and created_at.
  void record_queued(const std::string& queue, const std::string& partition, int64_t base,
                     const std::vector<Hash128>& hashes, int64_t created_at_ms);

  // The broker forgot what it knew (crash, lost connection, eviction): a
  // fresh instance; the kill switch renews it with the new setting.
  void forget();
  void set_enabled(bool enabled);
  bool enabled() const { return enabled_; }
  CacheCaller rules() const { return rules_; }

  static std::string pid(const std::string& queue, const std::string& partition);

  // What the broker asked and was answered: the module's own counts (evictions, memory) are private to it.
  struct Stats {
    uint64_t calls = 0;               // every call into the module, renewals included
    uint64_t answers = 0;             // verified_for_push
    uint64_t vouched = 0;             // Verified(w >= 0)
    uint64_t local_duplicates = 0;    // LocalDuplicate
    uint64_t hydrations = 0;          // hydrate
    uint64_t hydration_failures = 0;  // the read failed or went to a renewed cache
    uint64_t renewals = 0;
  };
  const Stats& stats() const { return stats_; }

 private:
  std::unique_ptr<ForeignCache> cache_;
  CacheCaller rules_;
  bool enabled_;
  uint64_t generation_ = 0;  // bumped on every renewal: a read in flight is then dropped
  std::map<std::string, int64_t> flushed_window_seconds_;  // per pid, the window of its last flush
  std::optional<int64_t> storage_newest_ms_;  // the newest created_at seen: a lower bound of storage's clock
  Stats stats_;
  // Per pid, the commits since the first still inside its window: volume's reach points only.
  struct Run {
    int64_t first_ms;
    size_t commits;
  };
  std::map<std::string, Run> runs_;
};

}  // namespace qdt::impl
