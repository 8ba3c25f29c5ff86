#pragma once
// Design variants (docs/semantics.md §7): named, runtime-selectable changes to the reference
// implementation that a designer might try. None is on by default; the suite's
// job is to catch every one that breaks the contract. `skip-probe` is a
// deliberately broken build used to prove that campaigns and shrinking work.
#include <optional>
#include <string>
#include <vector>

namespace qdt::impl {

enum class Variant {
  none,
  skip_probe,             // storage never probes: every push is queued
  fresh_id_on_duplicate,  // a duplicate answers a new id instead of the original's
  last_wins,              // in-request, the last occurrence of a key leads and alone is written
  queue_scope,            // the probe matches across all partitions of the queue
  purge_below_floor,      // the sidecar purge ignores the 900-second floor (and completed retention)
  watermark_off_by_one,   // the cache vouches one offset further than it knows
  probe_outside_lock,     // storage probes in one transaction and allocates in a later one
  stamp_before_lock,      // storage reads `now` before it takes the write lock
  no_row_lock,            // PostgreSQL: the probe runs without FOR UPDATE; only the allocator's UPDATE serializes
  bundle_unordered_locks,  // PostgreSQL: a bundle locks its partitions in request order, not ascending id
  bloom_filter,           // storage matches hashes through a small Bloom filter instead of exactly
  no_expire_before_verify,  // the cache answers without expiring first
  plain_set,              // the cache's hash set is not refcounted
  stale_window,           // the cache ignores a window change
  trust_local_hit,        // a cache hit answers duplicate without asking storage
  span_hydration,         // after an eviction or a gap the cache fetches only the missing span
  shipped_expiry,         // the cache expires by the broker's clock, hydrating by storage time + 5 s
  shipped_meta_ttl,       // the broker learns window changes through a 30 s TTL; storage has no window guard
  no_window_guard,        // storage applies any watermark whatever window it was computed with
  sidecar_with_segment,   // retention deletes a segment's sidecar row together with the segment
  keep_cache_on_reconnect,  // the broker keeps its cache and learnt windows when its connection to storage was lost
  merge_read_after_reset,   // the cache merges a hydration read into a partition reset while it was in flight
};

std::optional<Variant> parse_variant(const std::string& name);
std::string variant_name(Variant variant);
std::vector<std::string> variant_names();  // every variant but none
// One line: what the variant changes and where (qdt mutants --list).
std::string variant_description(Variant variant);
std::vector<Variant> all_variants();  // every variant but none, in catalogue order

}  // namespace qdt::impl
