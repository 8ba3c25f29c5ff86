#pragma once
// What storage holds after each event, rebuilt from the history alone (not
// from the model): the invariant checkers compare each event against the
// state the events before it committed.
//
// Usage: for each event in order, inspect the state, then apply(event). A
// queued push stores its frames at base_offset + i, as storage said; failed
// and duplicate pushes change nothing; segment deletions come from
// RetentionEvents (as storage recorded them; retention-model checks them
// against the model) and delete_segment faults; failed retention passes and
// purge steps change nothing. Offsets already held are not
// overwritten (the offsets checker reports the overlap).
//
// The replay keeps views into the applied events (ids, keys, queue and
// partition names) instead of copies: every event applied must outlive it,
// as a history outlives its checkers. Its nodes come from one arena, freed
// with the replay: it only grows while a history is walked.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <deque>
#include <memory_resource>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "properties/history.h"
#include "properties/history_index.h"
#include "properties/key_ids.h"

namespace qdt::properties {

struct StoredMessage {
  const history::FrameRecord* frame = nullptr;  // the frame stored, in the applied PushEvent
  int64_t offset = 0;
  int64_t created_at_ms = 0;
  size_t event_index = 0;  // the PushEvent that committed it
  bool segment_present = true;
  bool sidecar_present = true;
  size_t sidecar_purged_by = 0;  // event index, when !sidecar_present
  uint32_t key = 0;              // the frame's key (KeyIds)
  const std::string& message_id() const { return frame->message_id; }
  const std::string& transaction_id() const { return frame->transaction_id; }
  uint64_t origin_request() const { return frame->origin_request; }
};

class PartitionReplay {
 public:
  explicit PartitionReplay(std::pmr::memory_resource* arena) : stored_(arena), by_offset_(arena) {}
  const StoredMessage* at(int64_t offset) const;
  int64_t txns_start() const { return txns_start_; }

 private:
  friend class StorageReplay;
  void delete_span(int64_t base_offset, int64_t end_offset);
  // Stores `m` at m.offset unless that offset is held (the first write is
  // kept); nullptr then.
  StoredMessage* insert(const StoredMessage& m);
  // The first entry of by_offset_ at or after `offset`.
  std::pmr::vector<std::pair<int64_t, StoredMessage*>>::iterator lower_bound(int64_t offset);
  // Messages by offset, ascending. Storage hands offsets out in order, so
  // by_offset_ is appended to (a std::map cost a node and a rebalance per
  // message) and at() finds an offset of a gapless partition by index; a
  // message keeps its address in stored_ (a deque grown at its end only),
  // which Location points at.
  std::pmr::deque<StoredMessage> stored_;
  std::pmr::vector<std::pair<int64_t, StoredMessage*>> by_offset_;
  int64_t txns_start_ = 0;  // as the last purge step reported it
};

class StorageReplay {
 public:
  // `index`: of the history whose events are applied; it outlives the replay.
  explicit StorageReplay(const HistoryIndex& index) : index_(index) {}
  StorageReplay(const StorageReplay&) = delete;
  StorageReplay& operator=(const StorageReplay&) = delete;
  void apply(const history::Event& event, size_t event_index);
  // The window in force for `queue` (3600 until a ConfigureEvent says otherwise).
  int64_t window_seconds(std::string_view queue) const;
  const PartitionReplay* find(std::string_view queue, std::string_view partition) const;
  // A message stored anywhere by its id (ids are unique per run).
  struct Location {
    std::string_view queue;
    std::string_view partition;
    int64_t offset = 0;
    const StoredMessage* message = nullptr;  // at `offset` of that partition
  };
  const Location* locate(std::string_view message_id) const;
  // The same by the id's number (index_.messages()).
  const Location* locate(uint32_t message) const {
    return message < locations_.size() && locations_[message].message != nullptr ? &locations_[message] : nullptr;
  }
  // Offsets holding the key (a KeyIds id) whose sidecar row is still
  // present, ascending.
  std::span<const int64_t> live_offsets(uint32_t key) const {
    return key < live_.size() ? std::span<const int64_t>(live_[key]) : std::span<const int64_t>();  // nothing stored yet
  }
  // The same by the key's strings: empty for a key no frame of the history has.
  std::span<const int64_t> live_offsets(std::string_view queue, std::string_view partition,
                                        std::string_view transaction_id) const;

 private:
  using PartitionKey = std::pair<std::string_view, std::string_view>;  // queue, partition
  struct PartitionKeyHash {
    size_t operator()(const PartitionKey& k) const {
      const std::hash<std::string_view> h;
      return h(k.first) * 0x9e3779b97f4a7c15ULL + h(k.second);
    }
  };
  PartitionReplay& partition(std::string_view queue, std::string_view partition);
  static bool same_partition(const PartitionKey& a, std::string_view queue, std::string_view partition);
  std::pmr::monotonic_buffer_resource arena_;  // first: the maps below allocate from it
  std::pmr::unordered_map<std::string_view, int64_t> windows_{&arena_};
  std::pmr::unordered_map<PartitionKey, PartitionReplay, PartitionKeyHash> partitions_{&arena_};  // stable nodes
  // By message id number (index_.messages(), sized when the first push is
  // applied); message == nullptr: not stored. A node table keyed by the id
  // strings was an eighth of the checkers' time.
  std::pmr::vector<Location> locations_{&arena_};
  const HistoryIndex& index_;
  // By key id (index_.keys(), numbered when the first push is applied), the
  // live offsets: indexing by id hashes no transactionId.
  std::pmr::vector<std::pmr::vector<int64_t>> live_{&arena_};
  // The partition find() or partition() returned last (partitions are never removed).
  mutable PartitionKey last_key_;
  mutable const PartitionReplay* last_ = nullptr;
  // The queue window_seconds() found last (a key of windows_) and its
  // answer, until the next configure.
  mutable std::string_view last_window_queue_;
  mutable int64_t last_window_ = 0;
};

}  // namespace qdt::properties
