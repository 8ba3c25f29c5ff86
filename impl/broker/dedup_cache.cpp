#include "impl/broker/dedup_cache.h"
#include "impl/broker/dedup_cache_rows.h"

#include "impl/reached.h"
#include "impl/storage/storage_types.h"

#include <algorithm>
#include <cassert>

namespace qdt::impl {

using namespace cache_rows;  // NOLINT: the row helpers are this file's vocabulary

DedupCache::DedupCache(CacheConfig config) : config_(config), policy_(cache_policy(config.variant)) {
  static_assert(sizeof(Row) == kRowBytes && sizeof(Hash128) == kHashBytes);
  // The map node (a red-black node header and the pair) plus glibc malloc's
  // header and rounding (at most 8 + 15 bytes a block) for the node, the four
  // buffers and two heap-allocated key strings, and the strings' NULs.
  static_assert(kPartitionBytes >= static_cast<int64_t>(32 + sizeof(std::pair<const Key, Partition>) + 7 * 24 + 2));
}

void DedupCache::observe_storage_time(int64_t created_at_ms) {
  if (!storage_floor_ms_ || created_at_ms > *storage_floor_ms_) storage_floor_ms_ = created_at_ms;
}

void DedupCache::reset_data(Partition& p) {
  p.rows.clear();
  p.set.clear();
  p.hydrated = false;
  p.rebuild = false;
  p.hydrating = false;
  p.generation = ++generation_;
  p.hydrated_from = -1;
  p.verified_upto = -1;
  p.known_upto = -1;
}

void DedupCache::add_row(Partition& p, size_t at, int64_t base, int64_t created_at_ms,
                         const std::vector<Hash128>& hashes) {
  assert(!hashes.empty() && at <= p.rows.size());
  assert(!overlaps_held(p, at, base, base + static_cast<int64_t>(hashes.size()) - 1));  // I2
  const size_t first = at < p.rows.size() ? row_start(p, at) : p.set.size();
  const size_t n = hashes.size();
  p.set.insert(first, hashes.data(), n);
  // The rows above move up with their hashes (sequence numbers wrap by design).
  for (size_t r = at; r < p.rows.size(); ++r) p.rows[r].start += static_cast<uint32_t>(n);
  const Row row{base, created_at_ms, p.set.seq(first)};
  p.rows.insert(at, &row, 1);
  for (size_t i = first; i < first + n; ++i) policy_.set_add(p.set, i);
  p.known_upto = std::max(p.known_upto, base + static_cast<int64_t>(n) - 1);
}

void DedupCache::drop_front_row(Partition& p) {
  assert(!p.rows.empty() && row_start(p, 0) == 0);  // the set holds exactly the rows' hashes, in order
  for (size_t n = row_stop(p, 0); n > 0; --n) {
    policy_.set_remove(p.set, 0);
    p.set.pop_front();
  }
  p.rows.pop_front();
}

void DedupCache::expire(Partition& p, std::optional<int64_t> cutoff_ms) {
  // The cutoff comes from the policy (I3 for the reference).
  if (!cutoff_ms) return;
  const int64_t cutoff = *cutoff_ms;
  // created_at is non-decreasing along offsets, so the expired rows are a prefix.
  while (!p.rows.empty() && p.rows.front().created_at_ms < cutoff) {
    if (row_stop(p, 0) > 1) QDT_REACHED("cache.expired_multi_frame_segment");
    drop_front_row(p);
    ++stats_.expired_rows;
    QDT_REACHED("cache.expired_row");
  }
  // The oldest row kept sits exactly on the cutoff: one ms older would go.
  if (!p.rows.empty() && p.rows.front().created_at_ms == cutoff) QDT_REACHED("cache.kept_row_at_cutoff");
  if (p.hydrated) p.hydrated_from = p.rows.empty() ? p.verified_upto + 1 : p.rows.front().base;
}

int DedupCache::chain(Partition& p) {
  int links = 0;
  for (size_t r = lower_row(p, p.verified_upto + 1); r < p.rows.size() && p.rows[r].base == p.verified_upto + 1;
       r = lower_row(p, p.verified_upto + 1)) {
    p.verified_upto = row_end(p, r);
    ++links;
  }
  p.known_upto = std::max(p.known_upto, p.verified_upto);
  return links;
}

void DedupCache::reaccount(const Key& key, Partition& p) {
  const int64_t bytes = kPartitionBytes + static_cast<int64_t>(key.first.size() + key.second.size()) +
                        static_cast<int64_t>(p.rows.capacity()) * kRowBytes +
                        static_cast<int64_t>(p.set.hash_capacity()) * kHashBytes +
                        static_cast<int64_t>(p.set.slot_capacity()) * kIndexSlotBytes;
  total_bytes_ += bytes - p.bytes;
  p.bytes = bytes;
  if (p.set.size() >= kVolumeHashes) QDT_REACHED("volume.cache_held_thousand_hashes");
  if (p.rows.size() >= kVolumeRunCommits) QDT_REACHED("volume.cache_held_run_in_one_window");
}

void DedupCache::erase_partition(std::map<Key, Partition>::iterator it) {
  total_bytes_ -= it->second.bytes;
  partitions_.erase(it);
}

void DedupCache::evict_partition(std::map<Key, Partition>::iterator it) {
  if (it->second.hydrated) policy_.on_evict(evicted_upto_, it->first, it->second.verified_upto);
  if (it->second.hydrating) QDT_REACHED("cache.evicted_during_hydration");
  if (it->second.set.size() >= kVolumeHashes) QDT_REACHED("volume.cache_dropped_thousand_hashes");
  erase_partition(it);
  ++stats_.evictions;
}

void DedupCache::decline(const Key& key, Partition& p) {
  QDT_REACHED("cache.declined");
  if (p.set.size() >= kVolumeHashes) QDT_REACHED("volume.cache_dropped_thousand_hashes");
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
  if (policy_.window_changed(p.window_seconds, storage_window_seconds) ||
      !one_hash_per_offset(base, end, hashes.size())) {
    QDT_REACHED("cache.record_saw_window_change");
    p.rebuild = true;
    ++stats_.rebuilds;
    return;
  }
  const size_t at = lower_row(p, base);
  if (at < p.rows.size() && p.rows[at].base == base && row_end(p, at) == end && row_hashes_equal(p, at, hashes)) {
    QDT_REACHED("cache.record_already_read");
    return;  // already read
  }
  if (base <= p.verified_upto || overlaps_held(p, at, base, end)) {
    QDT_REACHED("cache.record_overlap_rebuild");
    p.rebuild = true;
    ++stats_.rebuilds;
    return;
  }
  if (base > p.verified_upto + 1) QDT_REACHED("cache.record_left_gap");
  add_row(p, at, base, created_at_ms, hashes);  // base > verified_upto + 1 leaves a gap
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
  for (const auto& [key, p] : partitions_) s.hashes += p.set.distinct();
  s.partitions = partitions_.size();
  return s;
}

std::optional<int64_t> DedupCache::held_offset(const std::string& queue, const std::string& partition,
                                               const Hash128& hash) const {
  auto it = partitions_.find(Key{queue, partition});
  if (it == partitions_.end() || !it->second.hydrated || !it->second.set.contains(hash)) return std::nullopt;
  const Partition& p = it->second;
  for (size_t i = 0; i < p.set.size(); ++i) {  // offset order: the first found is the smallest
    if (p.set[i] != hash) continue;
    const size_t lo = row_holding(p, i);
    return p.rows[lo].base + static_cast<int64_t>(i - row_start(p, lo));
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
  v.distinct_hashes = p.set.distinct();
  v.bytes = p.bytes;
  v.last_used = p.last_used;
  return v;
}

}  // namespace qdt::impl
