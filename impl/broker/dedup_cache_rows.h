#pragma once
// The dedup cache's row helpers over one partition (DedupCache::Partition is
// private, hence templates): row r's hashes are the set's positions
// [row_start, row_stop); its end offset follows from their count (one hash
// per offset). Shared by dedup_cache.cpp and dedup_cache_hydrate.cpp only.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "impl/hash.h"

namespace qdt::impl::cache_rows {

size_t row_start(const auto& p, size_t r) { return p.set.position(p.rows[r].start); }
size_t row_stop(const auto& p, size_t r) { return r + 1 < p.rows.size() ? row_start(p, r + 1) : p.set.size(); }
int64_t row_end(const auto& p, size_t r) {
  return p.rows[r].base + static_cast<int64_t>(row_stop(p, r) - row_start(p, r)) - 1;
}
// The first row with base >= `base` (rows.size() when none); appends are the common case.
size_t lower_row(const auto& p, int64_t base) {
  size_t lo = 0;
  size_t hi = p.rows.size();
  if (hi == 0 || p.rows.back().base < base) return hi;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (p.rows[mid].base < base) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}
bool row_hashes_equal(const auto& p, size_t r, const std::vector<Hash128>& hashes) {
  const size_t start = row_start(p, r);
  if (row_stop(p, r) - start != hashes.size()) return false;
  for (size_t i = 0; i < hashes.size(); ++i) {
    if (p.set[start + i] != hashes[i]) return false;
  }
  return true;
}
// Whether [base, end] overlaps a held row, rows[at] being the first with base >= `base`.
bool overlaps_held(const auto& p, size_t at, int64_t base, int64_t end) {
  return (at < p.rows.size() && p.rows[at].base <= end) || (at > 0 && row_end(p, at - 1) >= base);
}
// One hash per offset: what storage writes and what a row's end is derived from.
inline bool one_hash_per_offset(int64_t base, int64_t end, size_t hashes) {
  return end >= base && static_cast<int64_t>(hashes) == end - base + 1;
}
// The row holding position i of the set: the last one starting at or before it.
size_t row_holding(const auto& p, size_t i) {
  size_t lo = 0;
  size_t hi = p.rows.size();
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    if (row_start(p, mid) <= i) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace qdt::impl::cache_rows
