#include "properties/history_index.h"

#include <cassert>

namespace qdt::properties {

std::span<const size_t> HistoryIndex::leaders(const history::RequestRecord& request) const {
  const std::vector<history::RequestRecord>& requests = history_.requests;
  assert(!requests.empty() && &request >= requests.data() && &request < requests.data() + requests.size());
  if (leaders_start_.empty()) {
    leaders_start_.reserve(requests.size() + 1);
    for (const history::RequestRecord& r : requests) {
      leaders_start_.push_back(leaders_.size());
      if (r.items.size() == 1) {  // a lone item leads itself
        leaders_.push_back(0);
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
