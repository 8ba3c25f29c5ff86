#pragma once
// The storage.* reachability points of one push (impl/reached.h), from what
// it saw under its lock: one rule for every engine and every SQL, so a
// point that can happen on PostgreSQL is reported there as on SQLite.
#include <cstdint>

namespace qdt::impl {

struct PushSeen {
  int64_t p_verified = -1;         // the watermark the broker sent
  bool watermark_used = false;     // the window guard let storage trust it
  int64_t last_offset_before = -1; // the partition's last offset under the lock
  int64_t txns_start = 0;          // the sidecar's floor (first offset still probed)
  int64_t window_seconds = 0;      // the window in force (0: no probe)
};

// What the watermark did to the probe: before the probe runs.
void mark_watermark_reached(const PushSeen& seen);
// What the probe found: `duplicates` of the segment's `frames`.
void mark_duplicates_reached(uint64_t frames, uint64_t duplicates);

}  // namespace qdt::impl
