#pragma once
// The storage authority on SQLite (SPEC 2.4, 2.6-2.10).
//
// Per partition it keeps `last_offset`, `txns_start`, the segments (span,
// created_at, packed frames) and the sidecar `log_txns` (span, created_at, the
// K 16-byte hashes in frame order). The push is one transaction under the
// write serializer: probe the sidecar in SQL (a registered function matches
// hashes row by row), then either answer `duplicate` writing nothing, or
// allocate offsets and insert segment + sidecar row.
//
// Time is never read here: every operation takes `now_ms` from the caller
// (the world's storage clock). Not thread-safe; the simulated world calls it
// from one thread, and each call runs without yielding, so a call is atomic
// with respect to every other fiber.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "impl/dedup_cache.h"
#include "impl/frames.h"
#include "impl/queue_options.h"
#include "impl/sqlite.h"
#include "impl/variant.h"

namespace qdt::impl {

struct SegmentPush {
  std::string queue;
  std::string partition;
  std::vector<Frame> frames;  // K >= 1 frames, distinct hashes
  int64_t p_verified = -1;    // watermark: -1 = probe everything
  // The window the watermark was computed with. Storage ignores a watermark
  // computed with a smaller (or unknown, -1) window than the one in force: a
  // widened window reaches rows the cache never vouched for.
  int64_t window_seconds_assumed = -1;
};

struct PushResult {
  bool queued = false;
  int64_t base_offset = -1;    // queued
  int64_t created_at_ms = 0;   // queued
  std::vector<std::pair<uint32_t, int64_t>> duplicates;  // frame index -> smallest original offset
  // What happened inside, for metrics and the history.
  int64_t window_seconds = 0;
  bool probe_ran = false;
  uint64_t rows_scanned = 0;
  int64_t last_offset_before = -1;
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

struct SegmentSpan {
  int64_t base_offset = 0;
  int64_t end_offset = 0;
  int64_t created_at_ms = 0;
};

struct PurgeStep {
  std::vector<SegmentSpan> rows;  // sidecar rows removed in this step
  int64_t floor_seconds = 0;
  int64_t txns_start_after = 0;
  bool more = false;  // a full batch was purged: another step may find more
};

struct AckResult {
  bool acked = false;
  int64_t offset = -1;
  std::optional<Uuid> message_id;  // nullopt: the segment is gone
};

struct StoredMessage {
  int64_t offset = 0;
  Uuid message_id;
  std::string transaction_id;
  std::string payload;
};

class Storage {
 public:
  // `path` ":memory:" or a file; `purge_batch` bounds each purge step.
  explicit Storage(const std::string& path = ":memory:", int64_t purge_batch = 1000);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  // Creates the queue when missing, then stores its options.
  void configure(const std::string& queue, const QueueOptions& options);
  QueueOptions options(const std::string& queue);

  // The push transaction (SPEC 2.4). Throws StorageError, committing nothing.
  PushResult push(const SegmentPush& segment, int64_t now_ms);

  // The segment covering `offset`, if it is still present (SPEC 2.6).
  std::optional<CoveringSegment> covering_segment(const std::string& queue, const std::string& partition,
                                                  int64_t offset);

  // Checked mode (SPEC 5 cache-transparency), read-only: what the probe answers
  // for `segment` with p_verified = -1 at `now_ms`, and how many frames have
  // their smallest in-window original at or below segment.p_verified (when
  // push() would use that watermark at all).
  struct ProbeCheck {
    std::vector<std::pair<uint32_t, int64_t>> duplicates;
    uint64_t frames_at_or_below_watermark = 0;
  };
  ProbeCheck check_probe(const SegmentPush& segment, int64_t now_ms);

  // Sidecar rows with end_offset > after_offset and created_at >= since_ms, in
  // offset order, with last_offset, in one snapshot (cache hydration).
  SidecarRead read_sidecar(const std::string& queue, const std::string& partition, int64_t after_offset,
                           int64_t since_ms);

  // Ack by transactionId through the sidecar (SPEC 2.9).
  AckResult ack(const std::string& queue, const std::string& partition, const std::string& transaction_id,
                const std::string& consumer_group, int64_t now_ms);

  // Stored messages in offset order from `from`; limit <= 0: all (SPEC 2.10).
  std::vector<StoredMessage> read(const std::string& queue, const std::string& partition, int64_t from,
                                  int64_t limit);

  // Retention (SPEC 2.8), in steps the caller drives.
  std::vector<std::pair<std::string, std::string>> partitions(const std::optional<std::string>& queue);
  std::vector<SegmentSpan> delete_expired_segments(const std::string& queue, const std::string& partition,
                                                   int64_t now_ms);
  PurgeStep purge_step(const std::string& queue, const std::string& partition, int64_t now_ms);

  // Fault: deletes the segment covering `offset`, leaving the sidecar.
  std::optional<SegmentSpan> delete_segment(const std::string& queue, const std::string& partition, int64_t offset);

  // Read-only inspection (for checkers, metrics and expectations).
  PartitionState partition_state(const std::string& queue, const std::string& partition);
  int64_t stored_messages(const std::string& queue, const std::string& partition);
  int64_t total_changes() const;

  // Design variants that change storage (SPEC 7); Variant::none by default.
  void set_variant(Variant variant) { variant_ = variant; }
  int64_t sidecar_rows();
  int64_t segment_count();

 private:
  struct Statements;
  struct PartitionRow {
    int64_t partition_id = 0;
    int64_t last_offset = -1;
    int64_t txns_start = 0;
    QueueOptions options;
  };
  std::optional<PartitionRow> find_partition(const std::string& queue, const std::string& partition);
  PartitionRow find_or_create_partition(const std::string& queue, const std::string& partition);
  std::optional<CoveringSegment> covering(int64_t partition_id, int64_t offset);

  Database db_;
  int64_t purge_batch_;
  Variant variant_ = Variant::none;
  std::unique_ptr<Statements> st_;
};

}  // namespace qdt::impl
