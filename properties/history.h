#pragma once
// The recorded history of one run: what producers sent and received, and every
// storage transaction in commit order. Checkers (properties/) read only this
// and read-only storage inspection; they never reach into impl/ internals.
//
// Invariants the recorder (sim/) guarantees:
// - `events` is in storage-commit order (storage transactions are atomic in the
//   simulated world, so this order is the serialization order);
// - every PushEvent frame names the request (`origin_request`) it came from;
// - a RequestRecord is appended per delivery, when the broker answered it (or
//   when it was lost on the way, or lost in a broker crash); whether the
//   answer then reached the producer is `response_received`.
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace qdt::history {

inline constexpr const char* kZeroUuid = "00000000-0000-0000-0000-000000000000";

struct FrameRecord {
  std::string message_id;
  std::string transaction_id;
  uint64_t origin_request = 0;
};

// One storage push transaction (SPEC 2.4), successful or failed.
struct PushEvent {
  uint32_t broker = 0;
  std::string queue;
  std::string partition;
  std::vector<FrameRecord> frames;
  int64_t p_verified = -1;
  bool failed = false;  // the whole transaction failed: nothing committed
  // What storage observed and answered (meaningless when failed).
  int64_t now_ms = 0;          // storage clock, read once under the serializer
  int64_t window_seconds = 0;  // the window in force for this probe
  bool probe_ran = false;
  uint64_t rows_scanned = 0;
  bool queued = false;
  int64_t base_offset = -1;  // queued only
  std::vector<std::pair<uint32_t, int64_t>> duplicates;  // frame index -> original offset
  // Checked mode (cache-transparency): when p_verified >= 0, the probe re-run
  // read-only with -1 at the same instant, just before the transaction.
  bool checked = false;
  std::vector<std::pair<uint32_t, int64_t>> checked_duplicates;
  uint64_t checked_frames_at_or_below_watermark = 0;
  // Read-only inspection around the transaction.
  int64_t last_offset_before = -1;
  int64_t last_offset_after = -1;
  int64_t changes_before = 0;  // sqlite3_total_changes before / after
  int64_t changes_after = 0;
};

// The broker fetched the covering segment of `offset` to resolve a duplicate's id.
struct FetchEvent {
  uint32_t broker = 0;
  std::string queue;
  std::string partition;
  int64_t offset = 0;
  bool found = false;
  std::string message_id;      // kZeroUuid when !found
  std::string transaction_id;  // of the frame found
};

struct ConfigureEvent {
  std::string queue;
  int64_t now_ms = 0;
  int64_t window_seconds = 3600;
  int64_t retention_seconds = 0;
  int64_t completed_retention_seconds = 0;
};

// A segment removed: by retention, or by the delete_segment fault.
struct DeleteSegmentEvent {
  std::string queue;
  std::string partition;
  int64_t now_ms = 0;
  int64_t base_offset = 0;
  int64_t end_offset = 0;
  bool by_fault = false;
};

struct SidecarRowRecord {
  int64_t base_offset = 0;
  int64_t end_offset = 0;
  int64_t created_at_ms = 0;
};

// One bounded purge step of the sidecar (SPEC 2.8).
struct PurgeEvent {
  std::string queue;
  std::string partition;
  int64_t now_ms = 0;
  int64_t floor_seconds = 0;  // max(window, completedRetentionSeconds, 900)
  std::vector<SidecarRowRecord> rows;
  int64_t txns_start_after = 0;
};

struct AckEvent {
  std::string step;
  std::string queue;
  std::string partition;
  std::string transaction_id;
  std::string consumer_group;
  int64_t now_ms = 0;
  bool acked = false;
  int64_t offset = -1;
  std::string message_id;
};

struct ReadMessage {
  int64_t offset = 0;
  std::string message_id;
  std::string transaction_id;
};

struct ReadEvent {
  std::string step;
  std::string queue;
  std::string partition;
  int64_t from = 0;
  int64_t limit = 0;
  std::vector<ReadMessage> messages;
};

using Event = std::variant<PushEvent, FetchEvent, ConfigureEvent, DeleteSegmentEvent, PurgeEvent,
                           AckEvent, ReadEvent>;

struct ItemRecord {
  std::string queue;
  std::string partition;
  std::string transaction_id;
};

struct ResponseItem {
  std::string status;  // queued | duplicate | error
  std::string message_id;
  std::string transaction_id;
  std::string queue;
};

// One delivery of a request to a broker (or its loss on the way). A retry is
// a new attempt with the same push_id and the same items; a duplicated
// delivery is a second record of the same attempt with its own `request`.
struct RequestRecord {
  uint64_t request = 0;  // unique per delivery, matches FrameRecord::origin_request
  std::string step;
  uint32_t broker = 0;
  std::string producer;
  uint64_t push_id = 0;   // the producer's logical push: every attempt and delivery of one step's push
  uint32_t attempt = 0;   // 0 for the first attempt, then 1, 2, ... for retries
  bool delivered = true;  // false: lost on the way; the broker never saw it (no items, no responses)
  bool response_received = true;  // false: the response was lost or came after the producer stopped waiting
  std::vector<ItemRecord> items;  // as the broker saw them (valid requests only)
  bool rejected = false;          // rejected whole by validation (SPEC 2.1)
  std::string error;
  std::vector<ResponseItem> responses;
};

struct History {
  std::vector<Event> events;
  std::vector<RequestRecord> requests;
};

}  // namespace qdt::history
