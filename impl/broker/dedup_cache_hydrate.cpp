#include "impl/broker/dedup_cache.h"

// Hydration: a full or span read of the sidecar merged into a partition
// (docs/semantics.md §2.11), apart from dedup_cache.cpp for length.
#include "impl/broker/dedup_cache_rows.h"
#include "impl/reached.h"
#include "impl/storage/storage_types.h"

#include <algorithm>
#include <cassert>

namespace qdt::impl {

using namespace cache_rows;  // NOLINT: the row helpers are this file's vocabulary

bool DedupCache::hydrate(const Key& key, bool full, int64_t now_ms, int64_t window_seconds, HydrationSource& source) {
  Partition& p = partitions_.at(key);
  if (full) {
    reset_data(p);
    p.window_seconds = window_seconds;
    reaccount(key, p);
  }
  const uint64_t generation = p.generation;
  // A full read starts at the window's start, unless the policy remembered
  // where an evicted partition stood (span-hydration: the rows below are gone).
  const auto remembered = evicted_upto_.find(key);
  const int64_t after = !full ? p.verified_upto : remembered != evicted_upto_.end() ? remembered->second : -1;
  const int64_t since = policy_.hydrate_since(now_ms, storage_floor_ms_, window_seconds);
  p.hydrating = true;
  SidecarRead read;
  bool failed = false;
  try {
    read = source.sidecar_rows(key.first, key.second, after, since);
  } catch (const StorageError&) {
    failed = true;  // the read failed: answer -1, stay correct
  } catch (...) {
    // Anything else (the broker crashed with this read in flight) is not the
    // cache's to absorb: the whole request is lost. Leave the entry sane.
    if (auto it = partitions_.find(key); it != partitions_.end() && it->second.generation == generation) {
      it->second.hydrating = false;
    }
    throw;
  }
  // The source may have suspended us: the partition may be gone or reset.
  auto it = partitions_.find(key);
  if (it == partitions_.end()) QDT_REACHED("cache.hydration_outlived_its_partition");
  if (it != partitions_.end() && it->second.generation != generation) QDT_REACHED("cache.reset_during_hydration");
  if (it == partitions_.end() || !policy_.read_applies(generation, it->second.generation)) return false;
  Partition& q = it->second;
  q.hydrating = false;
  if (failed) {
    QDT_REACHED(full ? "cache.full_hydration_failed" : "cache.span_hydration_failed");
    ++stats_.hydration_failures;
    return false;  // a failed full read leaves it unhydrated; a failed span read leaves the gap pending
  }
  if (full) {
    ++stats_.hydrations_full;
  } else {
    ++stats_.hydrations_span;
  }
  if (q.rebuild) {
    QDT_REACHED("cache.record_during_hydration_forced_rebuild");
    return false;  // a record during the read found an inconsistency
  }

  auto inconsistent = [&] {
    QDT_REACHED("cache.inconsistent_read_rebuild");
    q.rebuild = true;
    ++stats_.rebuilds;
    reaccount(key, q);
    return false;
  };
  if (read.last_offset < after) return inconsistent();  // storage behind what we verified
  int64_t prev_end = after;
  size_t read_hashes = 0;
  for (const SidecarRow& r : read.rows) {
    if (!one_hash_per_offset(r.base_offset, r.end_offset, r.hashes.size()) || r.end_offset <= prev_end ||
        r.base_offset <= after || r.end_offset > read.last_offset)
      return inconsistent();
    prev_end = r.end_offset;
    read_hashes += r.hashes.size();
  }
  q.rows.reserve_more(read.rows.size());  // exact: a full read is most of what it will hold
  q.set.reserve_more(read_hashes);
  for (const SidecarRow& r : read.rows) {
    observe_storage_time(r.created_at_ms);
    const size_t at = lower_row(q, r.base_offset);
    if (at < q.rows.size() && q.rows[at].base == r.base_offset) {
      // Recorded by this broker while the read was in flight: must be the same row.
      if (row_end(q, at) != r.end_offset || !row_hashes_equal(q, at, r.hashes)) return inconsistent();
      QDT_REACHED("cache.hydration_met_recorded_row");
      continue;
    }
    if (overlaps_held(q, at, r.base_offset, r.end_offset)) return inconsistent();
    add_row(q, at, r.base_offset, r.created_at_ms, r.hashes);
  }
  // Every row ending at or below last_offset was in the snapshot (one transaction).
  q.verified_upto = std::max(q.verified_upto, read.last_offset);
  if (full) {
    q.hydrated = true;
    evicted_upto_.erase(key);
  }
  QDT_REACHED(full ? "cache.full_hydration" : "cache.span_hydration_closed_gap");
  if (chain(q) > 0) QDT_REACHED("cache.hydration_chained_past_its_read");
  expire(q, policy_.hydrate_cutoff(now_ms, storage_floor_ms_, window_seconds));
  reaccount(key, q);
  return true;
}

}  // namespace qdt::impl
