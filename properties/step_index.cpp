#include "properties/step_index.h"

#include <algorithm>

namespace qdt::properties {
namespace {
const std::string kNoStep;
}  // namespace

StepIndex::StepIndex(const history::History& history) {
  // Dense while the largest id is within a few times the record count.
  const uint64_t dense_max = 4 * static_cast<uint64_t>(history.requests.size()) + 1024;
  uint64_t dense_size = 0;  // one allocation, not one per doubling
  for (const history::RequestRecord& r : history.requests) {
    if (r.request < dense_max) dense_size = std::max(dense_size, r.request + 1);
  }
  dense_.reserve(dense_size);
  for (const history::RequestRecord& r : history.requests) {
    if (r.request < dense_max) {
      if (r.request >= dense_.size()) dense_.resize(r.request + 1, nullptr);
      if (dense_[r.request] == nullptr) dense_[r.request] = &r;
    } else {
      sorted_.emplace_back(r.request, &r);
    }
  }
  std::stable_sort(sorted_.begin(), sorted_.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
}

const history::RequestRecord* StepIndex::find(uint64_t request) const {
  if (request < dense_.size()) return dense_[request];
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), request,
                             [](const auto& entry, uint64_t id) { return entry.first < id; });
  return it == sorted_.end() || it->first != request ? nullptr : it->second;
}

const std::string& StepIndex::step_of(uint64_t request) const {
  const history::RequestRecord* r = find(request);
  return r ? r->step : kNoStep;
}

const std::string& StepIndex::step_of(const history::PushEvent& push, size_t index) const {
  if (index >= push.frames.size()) return push.frames.empty() ? kNoStep : step_of(push.frames.front().origin_request);
  return step_of(push.frames[index].origin_request);
}

}  // namespace qdt::properties
