#pragma once
// The executable specification of docs/semantics.md §2, without SQL, fibers or cache.
//
// It is fed the events of storage in commit order (pushes with the storage
// time read under the serializer, configure, segment deletions, sidecar
// purges, acks, reads) and says what each must answer, including what a
// retention pass must delete and what a purge step must remove (docs/semantics.md §2.8):
// checkers compare storage's retention with these decisions, never adopt it. It is deliberately
// naive: linear scans over plain vectors, so that it is obviously correct.
// Keys are compared as transactionId strings (the 128-bit hash is an
// implementation detail; docs/semantics.md §2.3 admits no other collision).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/dense_table.h"

namespace qdt::model {

inline constexpr const char* kZeroId = "00000000-0000-0000-0000-000000000000";
inline constexpr int64_t kSidecarFloorSeconds = 900;

struct QueueOptions {
  int64_t window_seconds = 3600;
  int64_t retention_seconds = 0;
  int64_t completed_retention_seconds = 0;
};

struct Frame {
  std::string message_id;
  std::string transaction_id;
};

struct PushAnswer {
  bool queued = false;
  int64_t base_offset = -1;                              // queued only
  std::vector<std::pair<uint32_t, int64_t>> duplicates;  // frame index -> smallest original offset
  bool probe_runs = false;                               // false exactly when the window is 0
};

struct AckAnswer {
  bool acked = false;
  int64_t offset = -1;
  std::string message_id;  // kZeroId when the segment is gone
};

// One segment (docs/semantics.md §2.4): a contiguous offset span written by one queued push,
// with its sidecar row (same span, same created_at).
struct Segment {
  int64_t base_offset = 0;
  int64_t end_offset = 0;
  int64_t created_at_ms = 0;
  bool present = true;          // the segment (payloads) is still stored
  bool sidecar_present = true;  // its sidecar row is still stored
  bool operator==(const Segment&) const = default;
};

struct Message {
  int64_t offset = 0;
  std::string message_id;
  std::string transaction_id;
  int64_t created_at_ms = 0;
  bool segment_present = true;
  bool sidecar_present = true;
};

// One partition's state.
class Partition {
 public:
  // Probe-then-allocate (docs/semantics.md §2.4, 2.7): a frame is a duplicate when an equal
  // key has a sidecar row still present with created_at >= now - window.
  // Frames of one segment are assumed distinct keys (first-wins ran before).
  PushAnswer push(const std::vector<Frame>& frames, int64_t now_ms, int64_t window_seconds);
  // What push() would answer, writing nothing (checkers compare before applying).
  PushAnswer probe(const std::vector<Frame>& frames, int64_t now_ms, int64_t window_seconds) const;
  // The id a duplicate of `offset` must answer (docs/semantics.md §2.6): the original's id,
  // or kZeroId when its segment is gone.
  std::string resolve_id(int64_t offset) const;
  void delete_segment(int64_t base_offset, int64_t end_offset);
  // Retention (docs/semantics.md §2.8): the present segments a retention pass at `now_ms`
  // must delete, ascending: created_at < now - retentionSeconds (when > 0), or
  // completed (below every group's committed offset) and created_at < now -
  // completedRetentionSeconds (when > 0). Writes nothing; apply with
  // delete_segment().
  std::vector<Segment> retention_due(int64_t now_ms, const QueueOptions& options) const;
  // One bounded purge step (docs/semantics.md §2.8): the first `batch` present sidecar rows
  // in offset order with created_at < now - floor. Writes nothing; apply with
  // purge_rows().
  std::vector<Segment> purge_due(int64_t now_ms, int64_t floor_seconds, int64_t batch) const;
  // An ack of `transaction_id` by `group` that resolved (docs/semantics.md §2.9, §9.4):
  // acks commit cumulatively, as the interface's do. The group's committed
  // offset moves to the key's smallest offset with a sidecar row above it
  // (the earlier offsets count as done, acked or not); a key held only at or
  // below it changes nothing. The group then has a committed offset.
  void record_ack(const std::string& group, const std::string& transaction_id);
  // The group's committed offset, -1 before its first resolved ack.
  int64_t committed(const std::string& group) const;
  // The segment is at or below every group's committed offset, and some
  // group has one (no group: nothing is completed).
  bool completed(const Segment& segment) const;
  // The first offset still present in the sidecar; one past the last offset
  // when every row is gone (0 for an empty partition).
  int64_t txns_start() const;
  const std::vector<Segment>& segments() const { return segments_; }
  // Rows with created_at < now - floor are purged (docs/semantics.md §2.8); returns how many.
  size_t purge(int64_t now_ms, int64_t floor_seconds);
  // One bounded purge step as storage recorded it: the sidecar rows of the
  // offsets [base, end] are gone; returns how many were present.
  size_t purge_rows(int64_t base_offset, int64_t end_offset);
  AckAnswer ack(const std::string& transaction_id) const;
  std::vector<Message> read(int64_t from, int64_t limit) const;
  size_t stored() const;
  int64_t last_offset() const { return static_cast<int64_t>(messages_.size()) - 1; }
  const std::vector<Message>& messages() const { return messages_; }

 private:
  std::vector<Message> messages_;  // index == offset
  std::vector<Segment> segments_;  // ascending, contiguous
  std::map<std::string, int64_t> committed_;  // consumer group -> committed offset
  // Offsets of each key, ascending: keeps a history of 100k pushes linear.
  // Hashed: only looked up, never walked in order. A key is numbered by a
  // DenseTable and matched by the transactionId of its first message: no
  // string is copied per key and growing the table moves no nodes (a node
  // table keyed by copied strings, and its rehash, were a tenth of the
  // checkers' time).
  // nullptr when no message holds the key.
  const std::vector<int64_t>* offsets_of(const std::string& transaction_id) const;
  // Records `offset`, whose message messages_ already holds.
  void add_offset(int64_t offset);
  // Whether key number `key` is `transaction_id`.
  bool holds(uint32_t key, const std::string& transaction_id) const {
    return messages_[static_cast<size_t>(offsets_by_key_[key].front())].transaction_id == transaction_id;
  }
  DenseTable key_numbers_;
  std::vector<std::vector<int64_t>> offsets_by_key_;  // by key number
};

// All queues and partitions of one storage.
class Model {
 public:
  void configure(const std::string& queue, const QueueOptions& options);
  QueueOptions options(const std::string& queue) const;
  Partition& partition(const std::string& queue, const std::string& partition);
  const Partition* find(const std::string& queue, const std::string& partition) const;
  // max(window, completedRetentionSeconds, 900)
  int64_t sidecar_floor_seconds(const std::string& queue) const;
  const std::map<std::pair<std::string, std::string>, Partition>& partitions() const { return partitions_; }

 private:
  std::map<std::string, QueueOptions> queues_;
  std::map<std::pair<std::string, std::string>, Partition> partitions_;
};

// Layer 1 of first-wins (docs/semantics.md §2.5): for each item of one request, the index of
// its group's leader (itself when it leads). Items are (queue, partition,
// transactionId) triples.
struct ItemKey {
  std::string queue;
  std::string partition;
  std::string transaction_id;
};
std::vector<size_t> request_leaders(const std::vector<ItemKey>& items);

}  // namespace qdt::model
