#pragma once
// Maps request ids to the RequestRecord (and so the step) they belong to, so
// that a failure found on a storage event can name the step that caused it.
#include <cstdint>
#include <string>
#include <unordered_map>

#include "properties/history.h"

namespace qdt::properties {

class StepIndex {
 public:
  // Keeps pointers into `history`, which must outlive the index.
  explicit StepIndex(const history::History& history);
  // nullptr when no RequestRecord has that id.
  const history::RequestRecord* find(uint64_t request) const;
  // "" when unknown.
  const std::string& step_of(uint64_t request) const;
  // The step of frame `index` of `push` ("" when out of range or unknown).
  const std::string& step_of(const history::PushEvent& push, size_t index) const;

 private:
  std::unordered_map<uint64_t, const history::RequestRecord*> requests_;  // the first record of each id
};

}  // namespace qdt::properties
