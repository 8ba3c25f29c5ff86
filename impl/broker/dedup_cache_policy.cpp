#include "impl/broker/dedup_cache_policy.h"

#include <cassert>
#include <limits>

namespace qdt::impl {

namespace {

constexpr int64_t kShippedHydrationSlackMs = 5000;

// I3: only the storage clock's lower bound can prove a row is out of window
// for storage; the broker's clock may run ahead of it (skew).
std::optional<int64_t> cutoff_by_storage_floor(int64_t now_ms, std::optional<int64_t> floor_ms,
                                               int64_t window_seconds) {
  if (!floor_ms) return std::nullopt;
  return std::min(now_ms, *floor_ms) - window_seconds * 1000;
}

// no-expire-before-verify: the answer step keeps whatever it holds. Harmless:
// expiry never moves verified_upto, so the held set is a superset of the
// reference's and the answer is the same watermark or -1 (a full probe).
std::optional<int64_t> cutoff_none(int64_t, std::optional<int64_t>, int64_t) { return std::nullopt; }

// shipped-expiry: the broker's own clock, no slack.
std::optional<int64_t> cutoff_by_broker_clock(int64_t now_ms, std::optional<int64_t>, int64_t window_seconds) {
  return now_ms - window_seconds * 1000;
}

// Read at least everything storage may count as in window (I3): from the
// storage floor's cutoff when known, otherwise everything still in the sidecar.
int64_t since_by_storage_floor(int64_t now_ms, std::optional<int64_t> floor_ms, int64_t window_seconds) {
  return floor_ms ? std::min(now_ms, *floor_ms) - window_seconds * 1000 : std::numeric_limits<int64_t>::min();
}

// shipped-expiry: storage time with 5 s of slack (the floor stands in for
// storage's clock, the only storage time the cache knows).
int64_t since_by_storage_time_with_slack(int64_t, std::optional<int64_t> floor_ms, int64_t window_seconds) {
  return floor_ms ? *floor_ms - window_seconds * 1000 - kShippedHydrationSlackMs
                  : std::numeric_limits<int64_t>::min();
}

// Both rules index a joining occurrence (the set names a hash's newest one).
void add_indexed(HashMultiset& set, size_t i) { set.index(i); }

// Refcounted: the hash stays while any held row carries it. The leaving
// occurrence is the oldest held, so it is the last of its hash exactly when
// the set names it.
void remove_counted(HashMultiset& set, size_t i) {
  assert(i == 0 && set.contains(set[i]));  // every held row's hashes are members (I1)
  set.unindex_if_named(i);
}

// plain-set: membership only; the first row to leave takes the hash with it.
void remove_plain(HashMultiset& set, size_t i) { set.unindex(set[i]); }

bool window_differs(int64_t built_seconds, int64_t seen_seconds) { return built_seconds != seen_seconds; }

bool same_generation(uint64_t read_from, uint64_t now) { return read_from == now; }

// merge-read-after-reset: the read is merged whatever came between.
bool any_generation(uint64_t, uint64_t) { return true; }
// stale-window: the window the partition was built with stands.
bool window_never_changes(int64_t, int64_t) { return false; }

void forget_on_evict(EvictedUpto&, const std::pair<std::string, std::string>&, int64_t) {}

// span-hydration: remember how far the evicted partition was verified, so
// the next read starts there instead of at the window's start.
void remember_on_evict(EvictedUpto& memory, const std::pair<std::string, std::string>& key, int64_t verified_upto) {
  if (verified_upto >= 0) memory[key] = verified_upto;
}

}  // namespace

CachePolicy cache_policy(Variant variant) {
  CachePolicy p{cutoff_by_storage_floor, cutoff_by_storage_floor, since_by_storage_floor, add_indexed,
                remove_counted,          window_differs,          forget_on_evict,        same_generation};
  switch (variant) {
    case Variant::no_expire_before_verify: p.answer_cutoff = cutoff_none; break;
    case Variant::plain_set:
      p.set_remove = remove_plain;
      break;
    case Variant::stale_window: p.window_changed = window_never_changes; break;
    case Variant::span_hydration: p.on_evict = remember_on_evict; break;
    case Variant::merge_read_after_reset: p.read_applies = any_generation; break;
    case Variant::shipped_expiry:
      p.answer_cutoff = cutoff_by_broker_clock;
      p.hydrate_cutoff = cutoff_by_broker_clock;
      p.hydrate_since = since_by_storage_time_with_slack;
      break;
    default: break;  // the variant does not touch the cache
  }
  return p;
}

}  // namespace qdt::impl
