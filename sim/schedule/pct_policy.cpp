#include "sim/schedule/pct_policy.h"

#include <cassert>
#include <cmath>

namespace qdt::sim {

PctPolicy::PctPolicy(Rng& rng, uint32_t depth, uint64_t steps) : rng_(rng), depth_(depth), steps_(steps) {
  assert(depth >= 1 && depth <= kDepthMax);
  assert(steps >= 1);
  // Distinct change points; a run shorter than depth - 1 steps gets one per step.
  const uint64_t wanted = std::min<uint64_t>(depth - 1, steps);
  for (uint32_t i = 1; change_at_.size() < wanted; ++i) {
    uint64_t at = 0;
    do {
      at = 1 + rng_.below(steps);
    } while (change_at_.count(at) != 0);
    change_at_[at] = i;
  }
  assert(change_at_.size() == wanted);
}

PctPolicy::Priority& PctPolicy::of(uint64_t ordinal) {
  if (ordinal >= priority_.size()) priority_.resize(ordinal + 1);
  return priority_[ordinal];
}

size_t PctPolicy::pick(const std::vector<uint64_t>& ready) {
  assert(!ready.empty());
  ++step_;
  // The fiber that ran step k_i has just suspended: it drops below every
  // fiber of the first band, to priority value i.
  if (last_ != SchedulePolicy::kLoop) {
    if (const auto it = change_at_.find(step_ - 1); it != change_at_.end()) {
      of(last_) = {true, 0, it->second};
      ++changes_hit_;
    }
  }
  size_t best = 0;
  for (size_t i = 0; i < ready.size(); ++i) {
    Priority& p = of(ready[i]);
    if (!p.assigned) {
      p = {true, 1, rng_.next()};
      ++fibers_seen_;
    }
    const Priority& b = of(ready[best]);
    const bool higher = p.band != b.band ? p.band > b.band
                        : p.key != b.key ? p.key > b.key
                                         : ready[i] < ready[best];
    if (i > 0 && higher) best = i;
  }
  last_ = ready[best];
  return best;
}

double PctPolicy::bound() const {
  const double n = static_cast<double>(std::max<uint64_t>(fibers_seen_, 1));
  const double k = static_cast<double>(std::max(steps_, step_));
  return 1.0 / (n * std::pow(k, static_cast<double>(depth_ - 1)));
}

}  // namespace qdt::sim
