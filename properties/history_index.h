#pragma once
// What several checkers derive from a history in the same way, built once per
// history and shared: the request index (StepIndex), the keys' ids (KeyIds),
// the message ids' numbers (MessageIds), each request's item leaders
// (model::request_leaders) and the verdicts
// storage gave each frame (Verdicts). All are read from the history alone;
// sharing them changes no checker's expectations, only how often they are
// rebuilt.
//
// Not thread-safe: each part is built on first use. The history must
// outlive the index.
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "properties/history.h"
#include "properties/key_ids.h"
#include "properties/message_ids.h"
#include "properties/step_index.h"
#include "properties/verdicts.h"

namespace qdt::properties {

class HistoryIndex {
 public:
  explicit HistoryIndex(const history::History& history) : history_(history) {}
  HistoryIndex(const HistoryIndex&) = delete;
  HistoryIndex& operator=(const HistoryIndex&) = delete;

  const history::History& history() const { return history_; }
  const StepIndex& steps() const {
    if (!steps_) steps_.emplace(history_);
    return *steps_;
  }
  const KeyIds& keys() const {
    if (!keys_) keys_.emplace(history_);
    return *keys_;
  }
  const MessageIds& messages() const {
    if (!messages_) messages_.emplace(history_);
    return *messages_;
  }
  const Verdicts& verdicts() const {
    if (!verdicts_) verdicts_.emplace(history_, keys(), messages());
    return *verdicts_;
  }
  // request_leaders(request) for a record of this history's requests.
  std::span<const size_t> leaders(const history::RequestRecord& request) const;

 private:
  const history::History& history_;
  mutable std::optional<StepIndex> steps_;
  mutable std::optional<KeyIds> keys_;
  mutable std::optional<MessageIds> messages_;
  mutable std::optional<Verdicts> verdicts_;
  // Every request's leaders, concatenated in request order; built on first use.
  mutable std::vector<size_t> leaders_;
  mutable std::vector<size_t> leaders_start_;  // per request, where its leaders begin
};

}  // namespace qdt::properties
