#pragma once
// Maps request ids to the RequestRecord (and so the step) they belong to, so
// that a failure found on a storage event can name the step that caused it.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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
  // The first record of each id, by id: ids are handed out densely from a
  // counter, so a vector is the index (larger ids go to sorted_).
  std::vector<const history::RequestRecord*> dense_;
  std::vector<std::pair<uint64_t, const history::RequestRecord*>> sorted_;  // sparse ids, ascending, stable
};

}  // namespace qdt::properties
