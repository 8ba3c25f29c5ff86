#pragma once
// A model::Model fed a history's events in commit order and made to follow
// storage where storage decided: a queued push is written, a duplicate or
// failed one is not; the segments a retention pass or a delete_segment fault
// removed are removed; the rows a purge step removed are removed; an ack
// commits its group's offset by the model's own resolution of the key
// (docs/semantics.md §2.9). Failed events change nothing.
//
// Checkers ask the model what an event should have done *before* apply()ing
// it, so one divergence is reported once instead of poisoning every later
// comparison (the model then agrees with storage again).
//
// The follower keeps views into the events it applied (queue and partition
// names): the history must outlive it, as it outlives its checkers.
#include <cstddef>
#include <memory_resource>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/model.h"
#include "properties/history.h"
#include "properties/key_view.h"

namespace qdt::properties {

class ModelFollower {
 public:
  void apply(const history::Event& event);
  const model::Model& model() const { return model_; }
  // nullptr when the partition never saw an event.
  const model::Partition* find(const std::string& queue, const std::string& partition) const;
  // model().options(queue), found by a hashed view of the name.
  model::QueueOptions options(const std::string& queue) const;
  // `push`'s frames as the model takes them, copied into buffers reused from
  // push to push: a message id does not fit a short string, and a fresh
  // vector cost an allocation per frame for every probe and write. Valid
  // until the next call for another push.
  const std::vector<model::Frame>& frames(const history::PushEvent& push) const;

 private:
  model::Partition& partition(const std::string& queue, const std::string& partition);

  model::Model model_;
  // Every partition apply() created, by name: model::Model finds one by a
  // std::map key of two copied strings, once per event and checker. Only
  // apply() changes the model, so this holds exactly its partitions.
  std::pmr::monotonic_buffer_resource arena_;
  std::pmr::unordered_map<PartitionView, model::Partition*, PartitionViewHash> partitions_{&arena_};
  // The options of every queue apply() configured, as the model holds them.
  std::pmr::unordered_map<std::string_view, model::QueueOptions> options_{&arena_};
  mutable std::vector<model::Frame> frames_;  // frames()'s buffers
  mutable const history::PushEvent* frames_of_ = nullptr;  // the push frames_ holds (the history outlives the follower)
};

}  // namespace qdt::properties
