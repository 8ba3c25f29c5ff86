#include "impl/dedup_cache.h"

#include "impl/reached.h"
#include "impl/storage_types.h"

#include <algorithm>
#include <cassert>

namespace qdt::impl {

DedupCache::DedupCache(CacheConfig config) : config_(config), policy_(cache_policy(config.variant)) {}

void DedupCache::observe_storage_time(int64_t created_at_ms) {
  if (!storage_floor_ms_ || created_at_ms > *storage_floor_ms_) storage_floor_ms_ = created_at_ms;
}

void DedupCache::reset_data(Partition& p) {
  p.rows.clear();
  p.set.clear();
  p.ring_hashes = 0;
  p.hydrated = false;
  p.rebuild = false;
  p.hydrating = false;
  p.generation = ++generation_;
  p.hydrated_from = -1;
  p.verified_upto = -1;
  p.known_upto = -1;
}

void DedupCache::add_row(Partition& p, int64_t base, Row row) {
  for (const Hash128& h : row.hashes) policy_.set_add(p.set, h);
  p.ring_hashes += row.hashes.size();
  p.known_upto = std::max(p.known_upto, row.end_offset);
  p.rows.emplace(base, std::move(row));
}

void DedupCache::drop_row(Partition& p, std::map<int64_t, Row>::iterator it) {
  for (const Hash128& h : it->second.hashes) policy_.set_remove(p.set, h);
  p.ring_hashes -= it->second.hashes.size();
  p.rows.erase(it);
}

void DedupCache::expire(Partition& p, std::optional<int64_t> cutoff_ms) {
  // The cutoff comes from the policy (I3 for the reference).
  if (!cutoff_ms) return;
  const int64_t cutoff = *cutoff_ms;
  // created_at is non-decreasing along offsets, so the expired rows are a prefix.
  while (!p.rows.empty() && p.rows.begin()->second.created_at_ms < cutoff) {
    if (p.rows.begin()->second.hashes.size() > 1) QDT_REACHED("cache.expired_multi_frame_segment");
    drop_row(p, p.rows.begin());
    ++stats_.expired_rows;
    QDT_REACHED("cache.expired_row");
  }
  // The oldest row kept sits exactly on the cutoff: one ms older would go.
  if (!p.rows.empty() && p.rows.begin()->second.created_at_ms == cutoff) QDT_REACHED("cache.kept_row_at_cutoff");
  if (p.hydrated) p.hydrated_from = p.rows.empty() ? p.verified_upto + 1 : p.rows.begin()->first;
}

int DedupCache::chain(Partition& p) {
  int links = 0;
  for (auto it = p.rows.find(p.verified_upto + 1); it != p.rows.end(); it = p.rows.find(p.verified_upto + 1)) {
    p.verified_upto = it->second.end_offset;
    ++links;
  }
  p.known_upto = std::max(p.known_upto, p.verified_upto);
  return links;
}

void DedupCache::reaccount(const Key& key, Partition& p) {
  const int64_t bytes = kPartitionBytes + static_cast<int64_t>(key.first.size() + key.second.size()) +
                        static_cast<int64_t>(p.rows.size()) * kRowBytes +
                        static_cast<int64_t>(p.ring_hashes) * kHashBytes;
  total_bytes_ += bytes - p.bytes;
  p.bytes = bytes;
}

void DedupCache::erase_partition(std::map<Key, Partition>::iterator it) {
  total_bytes_ -= it->second.bytes;
  partitions_.erase(it);
}

void DedupCache::evict_partition(std::map<Key, Partition>::iterator it) {
  if (it->second.hydrated) policy_.on_evict(evicted_upto_, it->first, it->second.verified_upto);
  if (it->second.hydrating) QDT_REACHED("cache.evicted_during_hydration");
  erase_partition(it);
  ++stats_.evictions;
}

void DedupCache::decline(const Key& key, Partition& p) {
  QDT_REACHED("cache.declined");
  if (p.hydrated) policy_.on_evict(evicted_upto_, key, p.verified_upto);
  reset_data(p);
  p.declined_flushes_left = config_.decline_cooldown_flushes;
  reaccount(key, p);
}

bool DedupCache::enforce_budget(const Key& keep) {
  bool kept = true;
  auto kit = partitions_.find(keep);
  if (kit != partitions_.end() && kit->second.bytes > config_.budget_bytes && kit->second.hydrated) {
    decline(keep, kit->second);
    kept = false;
  }
  while (total_bytes_ > config_.budget_bytes) {
    auto victim = partitions_.end();
    for (auto it = partitions_.begin(); it != partitions_.end(); ++it) {
      if (it->first == keep) continue;
      if (victim == partitions_.end() || it->second.last_used < victim->second.last_used) victim = it;
    }
    if (victim == partitions_.end()) break;
    QDT_REACHED("cache.evicted_by_budget");
    evict_partition(victim);
  }
  return kept;
}

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
  if (it == partitions_.end() || it->second.generation != generation) return false;
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
  for (const SidecarRow& r : read.rows) {
    if (r.end_offset < r.base_offset || r.end_offset <= prev_end || r.base_offset <= after ||
        r.end_offset > read.last_offset)
      return inconsistent();
    prev_end = r.end_offset;
  }
  for (SidecarRow& r : read.rows) {
    observe_storage_time(r.created_at_ms);
    auto held = q.rows.find(r.base_offset);
    if (held != q.rows.end()) {
      // Recorded by this broker while the read was in flight: must be the same row.
      if (held->second.end_offset != r.end_offset || held->second.hashes != r.hashes) return inconsistent();
      QDT_REACHED("cache.hydration_met_recorded_row");
      continue;
    }
    auto next = q.rows.lower_bound(r.base_offset);
    if (next != q.rows.end() && next->first <= r.end_offset) return inconsistent();
    if (next != q.rows.begin() && std::prev(next)->second.end_offset >= r.base_offset) return inconsistent();
    add_row(q, r.base_offset, Row{r.end_offset, r.created_at_ms, std::move(r.hashes)});
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

int64_t DedupCache::watermark(const std::string& queue, const std::string& partition,
                              const std::vector<Hash128>& hashes, int64_t now_ms, int64_t window_seconds,
                              HydrationSource& source) {
  ++stats_.answers;
  if (!config_.enabled) {
    QDT_REACHED("cache.answer_while_disabled");
    ++stats_.disabled;
    return -1;
  }
  Key key{queue, partition};
  auto it = partitions_.find(key);
  if (window_seconds <= 0) {
    // Storage does not probe; nothing to vouch for. Drop the state: a later
    // non-zero window starts from a full read (a window change).
    if (it != partitions_.end()) {
      QDT_REACHED("cache.window_zero_dropped_partition");
      erase_partition(it);
    }
    evicted_upto_.erase(key);
    return -1;
  }
  if (it == partitions_.end()) {
    it = partitions_.emplace(key, Partition{}).first;
    it->second.generation = ++generation_;
    reaccount(key, it->second);
  }
  {
    Partition& p = it->second;
    p.last_used = ++tick_;
    if (p.declined_flushes_left > 0) {
      --p.declined_flushes_left;
      QDT_REACHED(p.declined_flushes_left == 0 ? "cache.decline_cooldown_ended" : "cache.declined_cooldown_answer");
      ++stats_.declined;
      return -1;
    }
    if (p.hydrating) {
      QDT_REACHED("cache.flush_while_hydrating");
      return -1;  // another flush is reading storage for it
    }
    if (p.hydrated && !p.rebuild && policy_.window_changed(p.window_seconds, window_seconds)) {
      QDT_REACHED("cache.window_changed_rebuild");
      p.rebuild = true;
      ++stats_.rebuilds;
    }
    if (p.hydrated) {
      expire(p, policy_.answer_cutoff(now_ms, storage_floor_ms_, window_seconds));
      reaccount(key, p);
    }
    const bool full = !p.hydrated || p.rebuild;
    const bool span = !full && p.known_upto > p.verified_upto;
    if (full || span) {
      if (!hydrate(key, full, now_ms, window_seconds, source)) {
        if (partitions_.contains(key)) enforce_budget(key);
        return -1;
      }
    }
  }
  if (!enforce_budget(key)) {
    ++stats_.declined;
    return -1;
  }
  const Partition& p = partitions_.at(key);
  for (const Hash128& h : hashes) {
    if (p.set.contains(h)) {
      QDT_REACHED("cache.hit_is_not_a_verdict");
      ++stats_.hits;
      return -1;
    }
  }
  if (p.verified_upto < 0) return -1;
  QDT_REACHED("cache.vouched");
  ++stats_.vouched;
  return p.verified_upto;
}

void DedupCache::record_queued(const std::string& queue, const std::string& partition, int64_t base, int64_t end,
                               int64_t created_at_ms, const std::vector<Hash128>& hashes,
                               int64_t storage_window_seconds) {
  if (!config_.enabled) return;
  observe_storage_time(created_at_ms);
  Key key{queue, partition};
  auto it = partitions_.find(key);
  if (it == partitions_.end()) return;
  Partition& p = it->second;
  if (!p.hydrated) return;  // unknown, declined or mid full read: the next read sees storage
  p.last_used = ++tick_;
  if (p.rebuild) return;
  if (policy_.window_changed(p.window_seconds, storage_window_seconds) || end < base ||
      static_cast<int64_t>(hashes.size()) != end - base + 1) {
    QDT_REACHED("cache.record_saw_window_change");
    p.rebuild = true;
    ++stats_.rebuilds;
    return;
  }
  auto held = p.rows.find(base);
  if (held != p.rows.end() && held->second.end_offset == end && held->second.hashes == hashes) {
    QDT_REACHED("cache.record_already_read");
    return;  // already read
  }
  auto next = p.rows.lower_bound(base);
  const bool overlaps_held = (next != p.rows.end() && next->first <= end) ||
                             (next != p.rows.begin() && std::prev(next)->second.end_offset >= base);
  if (base <= p.verified_upto || overlaps_held) {
    QDT_REACHED("cache.record_overlap_rebuild");
    p.rebuild = true;
    ++stats_.rebuilds;
    return;
  }
  if (base > p.verified_upto + 1) QDT_REACHED("cache.record_left_gap");
  add_row(p, base, Row{end, created_at_ms, hashes});  // base > verified_upto + 1 leaves a gap
  if (chain(p) > 1) QDT_REACHED("cache.gap_closed_by_chain");
  reaccount(key, p);
  enforce_budget(key);
}

void DedupCache::evict(const std::optional<std::string>& queue, const std::optional<std::string>& partition) {
  for (auto it = partitions_.begin(); it != partitions_.end();) {
    const bool match = (!queue || it->first.first == *queue) && (!partition || it->first.second == *partition);
    if (match) {
      QDT_REACHED("cache.evicted_by_command");
      auto victim = it++;
      evict_partition(victim);
    } else {
      ++it;
    }
  }
}

void DedupCache::set_enabled(bool enabled) {
  if (!enabled) {
    for (const auto& [key, p] : partitions_) {
      if (p.hydrating) QDT_REACHED("cache.kill_switch_during_hydration");
    }
    clear();
  }
  config_.enabled = enabled;
}

void DedupCache::clear() {
  partitions_.clear();
  evicted_upto_.clear();
  total_bytes_ = 0;
  storage_floor_ms_.reset();
}

DedupCache::Stats DedupCache::stats() const {
  Stats s = stats_;
  s.bytes = static_cast<uint64_t>(total_bytes_);
  s.hashes = 0;
  for (const auto& [key, p] : partitions_) s.hashes += p.set.size();
  s.partitions = partitions_.size();
  return s;
}

std::optional<int64_t> DedupCache::held_offset(const std::string& queue, const std::string& partition,
                                               const Hash128& hash) const {
  auto it = partitions_.find(Key{queue, partition});
  if (it == partitions_.end() || !it->second.hydrated || !it->second.set.contains(hash)) return std::nullopt;
  for (const auto& [base, row] : it->second.rows) {  // offset order: the first found is the smallest
    for (size_t i = 0; i < row.hashes.size(); ++i) {
      if (row.hashes[i] == hash) return base + static_cast<int64_t>(i);
    }
  }
  // The set names only hashes some held row carries, refcounted or not (a
  // plain set erases on every row that leaves).
  assert(false);
  return std::nullopt;
}

std::optional<DedupCache::PartitionView> DedupCache::inspect(const std::string& queue,
                                                             const std::string& partition) const {
  auto it = partitions_.find(Key{queue, partition});
  if (it == partitions_.end()) return std::nullopt;
  const Partition& p = it->second;
  PartitionView v;
  v.hydrated = p.hydrated;
  v.rebuild = p.rebuild;
  v.gap_pending = p.hydrated && p.known_upto > p.verified_upto;
  v.verified_upto = p.verified_upto;
  v.hydrated_from = p.hydrated_from;
  v.window_seconds = p.window_seconds;
  v.declined_flushes_left = p.declined_flushes_left;
  v.rows = p.rows.size();
  v.distinct_hashes = p.set.size();
  v.bytes = p.bytes;
  v.last_used = p.last_used;
  return v;
}

}  // namespace qdt::impl
