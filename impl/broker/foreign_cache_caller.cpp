#include "impl/broker/foreign_cache_caller.h"

#include <algorithm>
#include <cassert>
#include <limits>

#include "impl/reached.h"

namespace qdt::impl {

const char* cache_caller_name(CacheCaller caller) {
  return caller == CacheCaller::shipped ? "shipped" : "reference";
}

std::optional<CacheCaller> parse_cache_caller(std::string_view name) {
  if (name == "shipped") return CacheCaller::shipped;
  if (name == "reference") return CacheCaller::reference;
  return std::nullopt;
}

ForeignCacheCaller::ForeignCacheCaller(std::unique_ptr<ForeignCache> cache, CacheCaller rules, bool enabled)
    : cache_(std::move(cache)), rules_(rules), enabled_(enabled) {
  assert(cache_ != nullptr);
}

std::string ForeignCacheCaller::pid(const std::string& queue, const std::string& partition) {
  std::string out;
  out.reserve(queue.size() + 1 + partition.size());
  out += queue;
  out += '\x1f';
  out += partition;
  return out;
}

int64_t ForeignCacheCaller::watermark(const std::string& queue, const std::string& partition,
                                      const std::vector<Hash128>& hashes, int64_t now_ms, int64_t window_seconds,
                                      HydrationSource& source) {
  assert(window_seconds > 0);
  const std::string id = pid(queue, partition);
  const int64_t window_ms = window_seconds * 1000;
  const bool shipped = rules_ == CacheCaller::shipped;
  // Expiry: the broker's clock as shipped; the newest storage time seen by
  // the reference (a broker ahead of storage would drop rows storage counts).
  if (shipped) {
    ++stats_.calls;
    cache_->expire(id, window_ms, now_ms);
  } else if (storage_newest_ms_) {
    ++stats_.calls;
    cache_->expire(id, window_ms, std::min(now_ms, *storage_newest_ms_));
  }
  auto [known, first] = flushed_window_seconds_.try_emplace(id, window_seconds);
  const bool window_changed = !first && known->second != window_seconds;
  known->second = window_seconds;
  if (window_changed) QDT_REACHED("cache.foreign_window_changed_rehydrate");
  stats_.calls += window_changed ? 0 : 1;  // a changed window rehydrates without asking
  if (window_changed || cache_->needs_hydration(id, now_ms).kind != HydrationNeed::Kind::none) {
    // A full-window read; storage's clock is known only through the newest
    // created_at seen, which is at or behind it, so the read is a superset.
    constexpr int64_t kEverything = std::numeric_limits<int64_t>::min();
    const int64_t since_ms = !storage_newest_ms_ ? kEverything
                             : shipped ? *storage_newest_ms_ - window_ms - kShippedHydrationSlackMs
                                       : std::min(now_ms, *storage_newest_ms_) - window_ms;
    const int64_t window_start_ms = shipped ? now_ms - window_ms - kShippedHydrationSlackMs : since_ms;
    const uint64_t generation = generation_;
    SidecarRead read;
    try {
      read = source.sidecar_rows(queue, partition, -1, since_ms);
    } catch (const StorageError&) {
      QDT_REACHED("cache.foreign_hydration_read_failed");
      ++stats_.hydration_failures;
      return -1;  // the module is not told: it stays unhydrated and the probe runs whole
    }
    // The read suspended this fiber: a renewal meanwhile makes it another cache's.
    if (generation != generation_) {
      QDT_REACHED("cache.foreign_renewed_during_hydration");
      ++stats_.hydration_failures;
      return -1;
    }
    for (const SidecarRow& row : read.rows) {
      storage_newest_ms_ = std::max(storage_newest_ms_.value_or(row.created_at_ms), row.created_at_ms);
    }
    size_t held = 0;
    for (const SidecarRow& row : read.rows) held += row.hashes.size();
    if (held >= kVolumeHashes) QDT_REACHED("volume.foreign_hydrated_thousand_hashes");
    ++stats_.calls;
    ++stats_.hydrations;
    cache_->hydrate(id, read.rows, window_start_ms, read.last_offset, now_ms);
    QDT_REACHED("cache.foreign_hydrated");
  }
  if (hashes.size() >= kVolumeHashes) QDT_REACHED("volume.foreign_asked_thousand_hashes");
  ++stats_.calls;
  ++stats_.answers;
  const PushCheck check = cache_->verified_for_push(id, hashes, now_ms);
  if (check.local_duplicate) {
    QDT_REACHED("cache.foreign_local_duplicate");
    ++stats_.local_duplicates;
    return -1;  // a hit is not a verdict: storage answers with the original offsets
  }
  if (check.verified < -1) throw ForeignCacheError("verified_for_push answered Verified(" + std::to_string(check.verified) + "), below -1");
  if (check.verified >= 0) {
    QDT_REACHED("cache.foreign_vouched");
    ++stats_.vouched;
  }
  return check.verified;
}

void ForeignCacheCaller::record_queued(const std::string& queue, const std::string& partition, int64_t base,
                                       const std::vector<Hash128>& hashes, int64_t created_at_ms) {
  storage_newest_ms_ = std::max(storage_newest_ms_.value_or(created_at_ms), created_at_ms);
  const std::string id = pid(queue, partition);
  if (hashes.size() >= kVolumeHashes) QDT_REACHED("volume.foreign_taught_thousand_hashes");
  // Commits of the partition since the first one still inside its window: an observation only.
  if (auto window = flushed_window_seconds_.find(id); window != flushed_window_seconds_.end()) {
    auto [run, fresh] = runs_.try_emplace(id, Run{created_at_ms, 0});
    if (!fresh && created_at_ms - run->second.first_ms > window->second * 1000) run->second = {created_at_ms, 0};
    if (++run->second.commits == kVolumeRunCommits) QDT_REACHED("volume.foreign_taught_run_in_one_window");
  }
  ++stats_.calls;
  cache_->on_push_committed(id, base, hashes, created_at_ms);
}

void ForeignCacheCaller::forget() {
  ++generation_;
  flushed_window_seconds_.clear();
  storage_newest_ms_.reset();
  runs_.clear();
  ++stats_.calls;
  ++stats_.renewals;
  cache_->renew(enabled_);
}

void ForeignCacheCaller::set_enabled(bool enabled) {
  enabled_ = enabled;
  forget();
}

}  // namespace qdt::impl
