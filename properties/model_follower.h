#pragma once
// A model::Model fed a history's events in commit order and made to follow
// storage where storage decided: a queued push is written, a duplicate or
// failed one is not; the segments a retention pass or a delete_segment fault
// removed are removed; the rows a purge step removed are removed; an ack's
// resolved offset counts towards "fully acknowledged". Failed events change
// nothing.
//
// Checkers ask the model what an event should have done *before* apply()ing
// it, so one divergence is reported once instead of poisoning every later
// comparison (the model then agrees with storage again).
#include <cstddef>

#include "model/model.h"
#include "properties/history.h"

namespace qdt::properties {

class ModelFollower {
 public:
  void apply(const history::Event& event);
  const model::Model& model() const { return model_; }
  // nullptr when the partition never saw an event.
  const model::Partition* find(const std::string& queue, const std::string& partition) const {
    return model_.find(queue, partition);
  }

 private:
  model::Model model_;
};

}  // namespace qdt::properties
