#pragma once
// The rules of the dedup cache that design variants change (docs/semantics.md §2.11, 7),
// as plain functions bound once when a DedupCache is constructed. The
// reference binds each slot to the rule docs/semantics.md §2.11 states; a variant rebinds
// exactly the slot whose rule it drops or changes. Nothing here reads a clock
// or a random source; every function is pure over its arguments.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "impl/broker/hash_multiset.h"
#include "impl/variant.h"

namespace qdt::impl {

// Offsets an eviction left behind, by (queue, partition); only span-hydration fills it.
using EvictedUpto = std::map<std::pair<std::string, std::string>, int64_t>;

struct CachePolicy {
  // The created_at (ms) below which a held row is dropped, computed from the
  // broker's clock, the storage floor (max created_at seen) and the window;
  // nullopt drops nothing. `answer_cutoff` runs before each answer,
  // `hydrate_cutoff` after each hydration read.
  using CutoffFn = std::optional<int64_t> (*)(int64_t now_ms, std::optional<int64_t> storage_floor_ms,
                                              int64_t window_seconds);
  CutoffFn answer_cutoff;
  CutoffFn hydrate_cutoff;
  // The created_at lower bound (ms) of a hydration read.
  int64_t (*hydrate_since)(int64_t now_ms, std::optional<int64_t> storage_floor_ms, int64_t window_seconds);
  // Occurrence i of the partition's held hashes has joined / is about to
  // leave (leaving happens at the front only: i == 0). The set answers
  // membership; the rule decides when a hash stops being a member.
  void (*set_add)(HashMultiset& set, size_t i);
  void (*set_remove)(HashMultiset& set, size_t i);
  // Whether a partition built with `built_seconds` must rebuild when it is
  // asked with (or storage applied) `seen_seconds`.
  bool (*window_changed)(int64_t built_seconds, int64_t seen_seconds);
  // An eviction of a hydrated partition verified up to `verified_upto`.
  void (*on_evict)(EvictedUpto& memory, const std::pair<std::string, std::string>& key, int64_t verified_upto);
  // Whether a hydration read begun in generation `read_from` of a partition
  // may be merged into its entry of generation `now` (a reset, an eviction
  // and a new entry, came between them when they differ).
  bool (*read_applies)(uint64_t read_from, uint64_t now);
};

// The policy of `variant`: the reference for every variant that does not
// change the cache.
CachePolicy cache_policy(Variant variant);

}  // namespace qdt::impl
