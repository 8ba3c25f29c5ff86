#pragma once
// The plain data that crosses the storage seam (docs/semantics.md §2.4-§2.10): what a broker
// sends, what storage answers, and the error a failed transaction throws.
// Neutral: the cache, the broker, the storage and the world all include it,
// and it includes none of them.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "impl/frames.h"
#include "impl/hash.h"
#include "impl/uuid.h"

namespace qdt::impl {

// A storage transaction failed whole and committed nothing. `code` is the
// SQLite result code that failed it (SQLITE_IOERR, SQLITE_FULL, SQLITE_BUSY, ...).
class StorageError : public std::runtime_error {
 public:
  explicit StorageError(const std::string& what, int code = 1) : std::runtime_error(what), code_(code) {}
  // The connection to storage was lost (storage restarted, e.g. after a power
  // loss): whatever was learnt through it may no longer be true of storage.
  static StorageError connection_lost(const std::string& what) {
    StorageError e(what, 10 /* SQLITE_IOERR */);
    e.connection_lost_ = true;
    return e;
  }
  // The engine broke a wait cycle by aborting this transaction (PostgreSQL's
  // 40P01, docs/semantics.md §9.2); it fails as SQLite's BUSY does.
  static StorageError deadlock(const std::string& what) {
    StorageError e(what, 5 /* SQLITE_BUSY */);
    e.deadlock_ = true;
    return e;
  }
  int code() const { return code_; }
  bool connection_lost() const { return connection_lost_; }
  bool deadlock() const { return deadlock_; }

 private:
  int code_;
  bool connection_lost_ = false;
  bool deadlock_ = false;
};

struct SegmentPush {
  std::string queue;
  std::string partition;
  std::vector<Frame> frames;  // K >= 1 frames, distinct hashes
  int64_t p_verified = -1;    // watermark: -1 = probe everything
  // The window the watermark was computed with. Storage ignores a watermark
  // computed with a smaller (or unknown, -1) window than the one in force: a
  // widened window reaches rows the cache never vouched for.
  int64_t window_seconds_assumed = -1;
  // Layer-2 followers (docs/semantics.md §2.5) riding on this segment's frames: (frame
  // index, request id of the follower). Storage ignores them; the world
  // records them in the history.
  std::vector<std::pair<uint32_t, uint64_t>> followers;
};

struct PushResult {
  bool queued = false;
  int64_t base_offset = -1;    // queued
  int64_t created_at_ms = 0;   // queued
  std::vector<std::pair<uint32_t, int64_t>> duplicates;  // frame index -> smallest original offset
  // What happened inside, for metrics and the history.
  int64_t now_ms = 0;  // the storage clock as this transaction read it
  int64_t window_seconds = 0;
  bool probe_ran = false;
  uint64_t rows_scanned = 0;
  int64_t last_offset_before = -1;
  // Checked mode (docs/semantics.md §5 cache-transparency): when the push carried a usable
  // watermark, the probe re-run inside the same transaction with -1.
  bool checked = false;
  std::vector<std::pair<uint32_t, int64_t>> checked_duplicates;
  uint64_t checked_frames_at_or_below_watermark = 0;
};

struct CoveringSegment {
  int64_t base_offset = 0;
  int64_t end_offset = 0;
  int64_t created_at_ms = 0;
  std::string frames;  // packed blob
};

struct PartitionState {
  bool exists = false;
  int64_t last_offset = -1;
  int64_t txns_start = 0;
};

// A cheap summary of one partition's rows (nothing-written checks).
struct PartitionRows {
  int64_t last_offset = -1;
  int64_t txns_start = 0;
  int64_t segments = 0;
  int64_t sidecar_rows = 0;
};

struct SegmentSpan {
  int64_t base_offset = 0;
  int64_t end_offset = 0;
  int64_t created_at_ms = 0;
};

struct RetentionDelete {
  int64_t now_ms = 0;
  std::vector<SegmentSpan> deleted;
};

struct PurgeStep {
  int64_t now_ms = 0;
  std::vector<SegmentSpan> rows;  // sidecar rows removed in this step
  int64_t floor_seconds = 0;
  int64_t batch = 0;
  int64_t txns_start_after = 0;
  bool more = false;  // a full batch was purged: another step may find more
};

struct AckResult {
  bool acked = false;
  int64_t offset = -1;
  std::optional<Uuid> message_id;  // nullopt: the segment is gone
  int64_t now_ms = 0;
  // Non-empty: storage's answer broke the contract (unreadable, or an error
  // where the ack resolves); the properties report it (docs/semantics.md §9.4).
  std::string answer_problem;
};

struct StoredMessage {
  int64_t offset = 0;
  Uuid message_id;
  std::string transaction_id;
  std::string payload;
};

struct SidecarRow {
  int64_t base_offset = 0;
  int64_t end_offset = 0;
  int64_t created_at_ms = 0;
  std::vector<Hash128> hashes;
};

struct SidecarRead {
  std::vector<SidecarRow> rows;  // offset order
  int64_t last_offset = -1;      // the partition's last_offset in the same snapshot
};

}  // namespace qdt::impl
