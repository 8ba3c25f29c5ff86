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
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "properties/history.h"

namespace qdt::properties {

struct StoredMessage {
  int64_t offset = 0;
  std::string message_id;
  std::string transaction_id;
  uint64_t origin_request = 0;
  int64_t created_at_ms = 0;
  size_t event_index = 0;  // the PushEvent that committed it
  bool segment_present = true;
  bool sidecar_present = true;
  size_t sidecar_purged_by = 0;  // event index, when !sidecar_present
};

class PartitionReplay {
 public:
  const StoredMessage* at(int64_t offset) const;
  // Offsets holding `transaction_id` whose sidecar row is still present, ascending.
  const std::set<int64_t>& live_offsets(const std::string& transaction_id) const;
  const std::map<int64_t, StoredMessage>& messages() const { return messages_; }
  int64_t txns_start() const { return txns_start_; }

 private:
  friend class StorageReplay;
  void delete_span(int64_t base_offset, int64_t end_offset);
  std::map<int64_t, StoredMessage> messages_;
  std::map<std::string, std::set<int64_t>> live_;
  int64_t txns_start_ = 0;  // as the last purge step reported it
};

class StorageReplay {
 public:
  void apply(const history::Event& event, size_t event_index);
  // The window in force for `queue` (3600 until a ConfigureEvent says otherwise).
  int64_t window_seconds(const std::string& queue) const;
  const PartitionReplay* find(const std::string& queue, const std::string& partition) const;
  // A message stored anywhere by its id (ids are unique per run).
  struct Location {
    std::string queue;
    std::string partition;
    int64_t offset = 0;
  };
  const Location* locate(const std::string& message_id) const;

 private:
  PartitionReplay& partition(const std::string& queue, const std::string& partition);
  std::map<std::string, int64_t> windows_;
  std::map<std::pair<std::string, std::string>, PartitionReplay> partitions_;
  std::map<std::string, Location> locations_;
};

}  // namespace qdt::properties
