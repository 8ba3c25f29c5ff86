#include "impl/storage/push_reach.h"

#include <algorithm>

#include "impl/reached.h"

namespace qdt::impl {

void mark_watermark_reached(const PushSeen& s) {
  if (s.window_seconds <= 0) return;
  const int64_t from = std::max(s.watermark_used ? s.p_verified : int64_t{-1}, s.txns_start - 1);
  if (s.p_verified >= 0 && !s.watermark_used) QDT_REACHED("storage.watermark_refused_by_window_guard");
  if (s.watermark_used && s.p_verified < s.txns_start - 1) QDT_REACHED("storage.purge_floor_above_watermark");
  if (s.watermark_used && s.last_offset_before <= from) QDT_REACHED("storage.probe_skipped_by_watermark");
  if (s.watermark_used && s.last_offset_before > from && from == s.p_verified && from >= 0) {
    QDT_REACHED("storage.probe_narrowed_by_watermark");
  }
}

void mark_duplicates_reached(uint64_t frames, uint64_t duplicates) {
  if (duplicates == 0) return;
  QDT_REACHED(duplicates < frames ? "storage.partial_duplicate_segment" : "storage.whole_segment_duplicate");
}

}  // namespace qdt::impl
