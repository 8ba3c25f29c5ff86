#include "properties/history_index.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

namespace qdt::properties {
namespace {

// No id appears twice. Most requests carry a few items: pairs are compared;
// a large one is sorted.
bool distinct(std::span<const uint32_t> ids) {
  constexpr size_t kScanMax = 32;
  if (ids.size() > kScanMax) {
    std::vector<uint32_t> sorted(ids.size());
    std::copy(ids.begin(), ids.end(), sorted.begin());
    std::sort(sorted.begin(), sorted.end());
    return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
  }
  for (size_t j = 1; j < ids.size(); ++j) {
    for (size_t i = 0; i < j; ++i) {
      if (ids[i] == ids[j]) return false;
    }
  }
  return true;
}

}  // namespace

std::span<const size_t> HistoryIndex::leaders(const history::RequestRecord& request) const {
  const std::vector<history::RequestRecord>& requests = history_.requests;
  assert(!requests.empty() && &request >= requests.data() && &request < requests.data() + requests.size());
  if (leaders_start_.empty()) {
    leaders_start_.reserve(requests.size() + 1);
    const KeyIds& keys = this->keys();
    for (const history::RequestRecord& r : requests) {
      leaders_start_.push_back(leaders_.size());
      // Items of distinct keys each lead themselves (a lone item too): what
      // the model answers them without building its keys. A request that
      // repeats a key asks the model.
      if (distinct(keys.items(r))) {
        for (size_t i = 0; i < r.items.size(); ++i) leaders_.push_back(i);
        continue;
      }
      const std::vector<size_t> l = request_leaders(r);
      leaders_.insert(leaders_.end(), l.begin(), l.end());
    }
    leaders_start_.push_back(leaders_.size());
  }
  const auto i = static_cast<size_t>(&request - requests.data());
  assert(leaders_start_[i + 1] - leaders_start_[i] == request.items.size());
  return {leaders_.data() + leaders_start_[i], leaders_start_[i + 1] - leaders_start_[i]};
}

}  // namespace qdt::properties
