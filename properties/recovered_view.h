#pragma once
// What the latest storage crash recovered, rebuilt from the changes each
// crash records (history::StorageCrash::recovered): the world diffs each
// recovery against it to record a crash, and durability applies the same
// changes to judge one.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "properties/history.h"

namespace qdt::properties {

class RecoveredView {
 public:
  using Key = std::pair<std::string, std::string>;  // (queue, partition)
  using Messages = std::map<int64_t, history::ReadMessage>;

  // Moves the view on by one crash's changes.
  void apply(const std::vector<history::RecoveredChange>& changes);
  // The changes from this view to `reads` (every partition's messages, in any
  // order; a partition absent holds nothing), and moves the view on by them.
  std::vector<history::RecoveredChange> advance_to(const std::vector<history::FinalRead>& reads);

  // The messages recovered in one partition; nullptr when it holds none.
  const Messages* find(const Key& key) const;
  const std::map<Key, Messages>& partitions() const { return partitions_; }
  // Messages held, over every partition.
  size_t messages() const { return messages_; }

 private:
  std::map<Key, Messages> partitions_;  // partitions holding at least one message
  size_t messages_ = 0;
};

// The records a crash keeps: messages written plus offsets removed.
size_t recorded_changes(const history::StorageCrash& crash);

}  // namespace qdt::properties
