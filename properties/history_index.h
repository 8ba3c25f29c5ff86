#pragma once
// What several checkers derive from a history in the same way, built once per
// history and shared: the request index (StepIndex) and the verdicts storage
// gave each frame (Verdicts). Both are read from the history alone; sharing
// them changes no checker's expectations, only how often they are rebuilt.
//
// Not thread-safe: the verdicts are built on first use. The history must
// outlive the index.
#include <optional>

#include "properties/history.h"
#include "properties/step_index.h"
#include "properties/verdicts.h"

namespace qdt::properties {

class HistoryIndex {
 public:
  explicit HistoryIndex(const history::History& history) : history_(history), steps_(history) {}
  HistoryIndex(const HistoryIndex&) = delete;
  HistoryIndex& operator=(const HistoryIndex&) = delete;

  const history::History& history() const { return history_; }
  const StepIndex& steps() const { return steps_; }
  const Verdicts& verdicts() const {
    if (!verdicts_) verdicts_.emplace(history_);
    return *verdicts_;
  }

 private:
  const history::History& history_;
  StepIndex steps_;
  mutable std::optional<Verdicts> verdicts_;
};

}  // namespace qdt::properties
