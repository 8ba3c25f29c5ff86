#include "sim/schedule/choice_policy.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace qdt::sim {

ChoicePolicy::ChoicePolicy(std::vector<uint64_t> choices, std::vector<Sleeper> sleep_at_last)
    : choices_(std::move(choices)), sleep_(std::move(sleep_at_last)) {
  // Nothing listed: the search's first run, reducing from its first step.
  reducing_ = choices_.empty();
  assert(reducing_ ? sleep_.empty() : true);
}

bool ChoicePolicy::asleep(uint64_t fiber) const {
  return std::any_of(sleep_.begin(), sleep_.end(), [&](const Sleeper& s) { return s.fiber == fiber; });
}

size_t ChoicePolicy::pick(const std::vector<uint64_t>& ready) {
  assert(!ready.empty());
  if (ready.size() == 1) {
    // Not a choice; but a lone ready fiber that sleeps means every
    // continuation from here was explored already.
    if (reducing_ && !blocked_ && asleep(ready[0])) blocked_ = true;
    picked_point_ = SIZE_MAX;
    return 0;
  }
  sorted_.assign(ready.begin(), ready.end());
  std::sort(sorted_.begin(), sorted_.end());
  const uint64_t index = choice_points_++;
  const bool listed = index < choices_.size();
  uint64_t chosen = sorted_.front();
  if (listed) {
    chosen = choices_[index];
    if (!std::binary_search(sorted_.begin(), sorted_.end(), chosen)) {
      if (error_.empty()) {
        error_ = "choice " + std::to_string(index) + " names fiber " + std::to_string(chosen) +
                 ", which is not ready there (ready: ";
        for (size_t i = 0; i < sorted_.size(); ++i) error_ += (i ? "," : "") + std::to_string(sorted_[i]);
        error_ += ")";
      }
      chosen = sorted_.front();
    }
  } else if (extend_rng_ != nullptr) {
    chosen = sorted_[extend_rng_->below(sorted_.size())];
  } else if (!blocked_) {
    const auto awake = std::find_if(sorted_.begin(), sorted_.end(), [&](uint64_t f) { return !asleep(f); });
    if (awake == sorted_.end()) {
      blocked_ = true;
    } else {
      chosen = *awake;
    }
  }
  taken_.push_back(chosen);
  if (listed || !blocked_) {
    points_.push_back({sorted_, chosen, Footprint(), listed ? std::vector<Sleeper>{} : sleep_});
    pending_point_ = points_.size() - 1;
  }
  picked_point_ = listed || !blocked_ ? points_.size() - 1 : SIZE_MAX;
  // The last listed choice is the search's branch: its sleep set holds from here.
  if (listed && index + 1 == choices_.size()) reducing_ = true;
  const auto at = std::find(ready.begin(), ready.end(), chosen);
  assert(at != ready.end());
  return static_cast<size_t>(at - ready.begin());
}

void ChoicePolicy::step_ended(uint64_t ordinal, const Footprint& footprint, uint64_t readied_in) {
  if (pending_point_ != SIZE_MAX && points_[pending_point_].chosen == ordinal) {
    points_[pending_point_].chosen_footprint = footprint;
    pending_point_ = SIZE_MAX;
  }
  if (!blocked_) {
    // The loop's steps are not picked: a worker's step ends before the next pick.
    const size_t point = ordinal == kLoop ? SIZE_MAX : std::exchange(picked_point_, SIZE_MAX);
    steps_.push_back({ordinal, footprint, readied_in, point});
  }
  if (!reducing_ || blocked_) return;
  // A sleeper wakes when a step dependent on its pending one runs.
  std::erase_if(sleep_, [&](const Sleeper& s) { return s.fiber == ordinal || !s.footprint.independent_of(footprint); });
}

}  // namespace qdt::sim
