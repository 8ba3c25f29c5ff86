#include "properties/step_index.h"

namespace qdt::properties {
namespace {
const std::string kNoStep;
}  // namespace

StepIndex::StepIndex(const history::History& history) {
  requests_.reserve(history.requests.size());
  for (const history::RequestRecord& r : history.requests) requests_.emplace(r.request, &r);
}

const history::RequestRecord* StepIndex::find(uint64_t request) const {
  auto it = requests_.find(request);
  return it == requests_.end() ? nullptr : it->second;
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
