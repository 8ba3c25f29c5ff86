#pragma once
// The recorded history of one run: what producers sent and received, and every
// storage transaction in commit order. Checkers (properties/) read only this
// and read-only storage inspection; they never reach into impl/ internals.
//
// Invariants the recorder (sim/) guarantees:
// - `events` is in storage-commit order. Storage transactions interleave
//   statement by statement (docs/semantics.md §2.4), but each is recorded at the instant it
//   commits (or rolls back, or its read snapshot ends), with no fiber switch
//   in between, and SQLite's write lock serializes commits: this order is the
//   serialization order;
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

// A layer-2 follower (docs/semantics.md §2.5): request `request` carried the key of frame
// `frame` of this segment but produced no frame of its own, because the broker
// fused it behind that frame. Recorded on the segment push where the leader
// frame first appears (round 0 of its flush); the follower must answer exactly
// what its leader finally answers (queued -> duplicate with the leader's id).
struct FollowerRecord {
  uint64_t request = 0;
  std::string transaction_id;
  uint32_t frame = 0;
};

// Where an injected storage fault (docs/semantics.md §8) hit a transaction: the statement
// index inside the transaction (0 = its BEGIN) and the SQLite error code the
// fault made that statement return. statement < 0: no fault.
struct FaultRecord {
  int64_t statement = -1;
  int code = 0;  // SQLITE_IOERR, SQLITE_FULL, ...
};

// A cheap fingerprint of what one push transaction could have written, read
// by the recorder on the pushing connection while it holds the write lock
// (so nothing else can commit in between): before the transaction's first
// write and after it ended. last_offset and txns_start are the partition's;
// the two counters are SQLite's count of segment and sidecar rows that
// connection's committed transactions inserted, updated or deleted, in any
// partition (sim/world/write_counter.h: SQLite's pre-update, commit and rollback
// hooks; a rolled-back write does not count). Counting the partition's rows
// instead read every row, twice per push: a cost that grew with the
// database. Only differences between `before` and `after` mean anything.
struct PartitionFingerprint {
  int64_t last_offset = -1;
  int64_t txns_start = 0;
  int64_t segments = 0;      // segment rows written (a counter)
  int64_t sidecar_rows = 0;  // sidecar rows written (a counter)
  bool operator==(const PartitionFingerprint&) const = default;
};

// One storage push transaction (docs/semantics.md §2.4), successful or failed.
struct PushEvent {
  uint32_t broker = 0;
  std::string queue;
  std::string partition;
  std::vector<FrameRecord> frames;
  int64_t p_verified = -1;
  // The window the broker computed p_verified with (storage ignores a
  // watermark computed with a smaller window than the one in force).
  int64_t window_seconds_assumed = -1;
  std::vector<FollowerRecord> followers;  // layer-2 followers of this segment's frames
  bool failed = false;  // the whole transaction failed: nothing committed
  FaultRecord fault;    // when failed by an injected fault
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
  // Read-only inspection around the transaction (under its write lock).
  int64_t last_offset_before = -1;
  int64_t last_offset_after = -1;
  PartitionFingerprint rows_before;
  PartitionFingerprint rows_after;
  // False when storage lost power between this transaction's end and the
  // inspection after it (crash_storage): rows_after and last_offset_after
  // were never read, and whether the commit survived is the durability
  // property's question, not this event's.
  bool rows_after_read = true;
  uint32_t busy_waits = 0;  // SQLITE_BUSY answers waited out before the lock was taken
};

// The broker fetched the covering segment of `offset` to resolve a duplicate's id.
struct FetchEvent {
  uint32_t broker = 0;
  std::string queue;
  std::string partition;
  int64_t offset = 0;
  bool failed = false;         // an injected fault or a lost connection failed the read: the id is unreadable (zero)
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

// A segment removed by the delete_segment fault (retention deletions are
// RetentionEvents).
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

// One retention pass over one partition deleting expired segments (docs/semantics.md §2.8),
// recorded even when it deleted nothing: the checker decides from the model
// what it had to delete at `now_ms`.
struct RetentionEvent {
  std::string queue;
  std::string partition;
  int64_t now_ms = 0;  // storage clock, read under the write lock
  bool failed = false;  // an injected fault: nothing deleted
  FaultRecord fault;
  std::vector<SidecarRowRecord> deleted;  // segment spans deleted, ascending
};

// One bounded purge step of the sidecar (docs/semantics.md §2.8).
struct PurgeEvent {
  std::string queue;
  std::string partition;
  int64_t now_ms = 0;
  int64_t floor_seconds = 0;  // max(window, completedRetentionSeconds, 900)
  int64_t batch = 0;          // purge_batch: at most this many rows per step
  bool more = false;          // a full batch was purged: the loop runs another step
  bool failed = false;        // an injected fault: nothing purged
  FaultRecord fault;
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
  bool failed = false;  // an injected fault: nothing recorded, the step answers error
  FaultRecord fault;
  // Non-empty: storage's answer broke the ack's contract (unreadable, or an
  // error where it resolves); ack-resolution reports it.
  std::string answer_problem;
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
  bool failed = false;  // an injected fault: the step answers error
};

using Event = std::variant<PushEvent, FetchEvent, ConfigureEvent, DeleteSegmentEvent, RetentionEvent, PurgeEvent,
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
  bool lost_in_crash = false;     // the broker crashed with this request in flight: it answered nothing
  std::vector<ItemRecord> items;  // as the broker saw them (valid requests only)
  // On the storage clock (world time, no broker skew), filled when
  // History::recorded_request_times: when the broker received this delivery
  // and when it answered it (or crashed with it). Every frame this delivery
  // produced committed with received_at_ms <= created_at <= answered_at_ms;
  // client-visible bounds storage times from the outside with them.
  int64_t received_at_ms = 0;
  int64_t answered_at_ms = 0;
  bool rejected = false;          // rejected whole by validation (docs/semantics.md §2.1)
  std::string error;
  std::vector<ResponseItem> responses;
};

// What the producer of one logical push (every attempt of one push step)
// finally reported: one status per item, queued | duplicate | error | timeout,
// or `rejected`. `finished` is false when the run ended with the push still
// waiting (a liveness failure).
struct PushOutcomeRecord {
  std::string step;
  std::string producer;
  uint64_t push_id = 0;
  uint32_t attempts = 0;
  bool finished = true;
  bool rejected = false;
  std::vector<std::string> statuses;
  std::vector<std::string> message_ids;
};

// A read of one whole partition after the run ended, through its own
// connection, as a consumer would do it (client-visible).
struct FinalRead {
  std::string queue;
  std::string partition;
  std::vector<ReadMessage> messages;
};

// How one partition's recovered messages differ from what the previous
// crash recovered (properties/recovered_view.h applies it): offsets that now
// hold a message they did not hold before, and offsets that hold nothing now.
struct RecoveredChange {
  std::string queue;
  std::string partition;
  std::vector<ReadMessage> written;  // ascending offsets
  std::vector<int64_t> removed;      // ascending
};

// Storage lost power (crash_storage) after `event_index` events: what the
// world observed once SQLite recovered. An observation for the checkers to
// judge against the model (durability), never something the model adopts.
struct StorageCrash {
  size_t event_index = 0;  // events[0, event_index) happened before the crash
  int64_t at_ms = 0;
  std::string synchronous;  // "full", "normal", "off"
  std::string integrity;    // PRAGMA integrity_check after recovery ("ok")
  uint64_t bytes_dropped = 0;  // unsynced bytes the disk forgot
  uint64_t files_vanished = 0;
  uint64_t torn_bytes_kept = 0;
  // Every partition's messages after recovery, as changes to what the
  // previous crash recovered (the first crash: to nothing), so that a run's
  // crashes keep what changed rather than every message once per crash.
  std::vector<RecoveredChange> recovered;  // sorted by (queue, partition)
};

// A storage transaction that ended for want of a lock (deadlock-free),
// recorded from what the storage call raised: the engine cancelled it to
// break a wait cycle (PostgreSQL's SQLSTATE 40P01, never an injected
// cancel), or its lock wait outlasted the bound and it gave up.
struct LockFailure {
  std::string connection;  // "broker 0", "retention", "admin"
  std::string call;        // push, retention, purge, configure, ack, read, delete-segment, fetch, hydrate
  std::string step;        // the script step of an ack or read, else ""
  std::string queue;
  std::string partition;
  int64_t at_ms = 0;     // storage clock
  int64_t event = -1;    // the failed transaction's index in History::events, -1 when the call records none
  bool deadlock = false;  // false: a lock wait that never ended
};

// The run stalled (liveness): every fiber waited and no timer was pending
// while requests waited inside a broker for a wake nobody would send. The
// world woke them as lost to end the run, and records that it had to.
struct Stall {
  int64_t at_ms = 0;  // virtual clock
  uint32_t broker = 0;
  uint32_t waiters = 0;  // requests waiting in the broker's fusion lanes
};

struct History {
  std::vector<Event> events;
  std::vector<StorageCrash> storage_crashes;
  std::vector<RequestRecord> requests;
  std::vector<PushOutcomeRecord> outcomes;  // one per logical push, in completion order
  std::vector<FinalRead> final_reads;       // every partition, sorted by (queue, partition)
  // Storage connections still inside a transaction (holding a lock) when the
  // run ended, by name ("broker 0", "retention", "admin"): liveness.
  std::vector<std::string> open_transactions_at_end;
  std::vector<LockFailure> lock_failures;  // in the order the calls failed
  std::vector<Stall> stalls;
  // True when the recorder filled outcomes / final_reads (hand-made histories
  // in older tests do not): the black-box checkers skip what was not recorded.
  bool recorded_outcomes = false;
  bool recorded_final_reads = false;
  bool recorded_request_times = false;  // RequestRecord::received_at_ms / answered_at_ms
};

}  // namespace qdt::history
