#pragma once
// Probabilistic Concurrency Testing (Burckhardt, Kothari, Musuvathi and
// Nagarakatte, "A Randomized Scheduler with Probabilistic Guarantees of
// Finding Bugs", ASPLOS 2010) as a SchedulePolicy:
//
//   * every fiber gets a random priority when it is first seen ready (a
//     64-bit draw, ties broken by ordinal: the priorities of the fibers seen
//     so far are a uniformly random permutation, as the paper's are);
//   * the highest-priority ready fiber always runs;
//   * depth - 1 change points are drawn uniformly (distinct) from steps
//     1..steps before the run; the i-th of them carries priority value i.
//     When the fiber that ran step k_i suspends, its priority drops to i,
//     below every priority of the first band (so below every fiber not yet
//     lowered).
//
// The guarantee (the paper's Theorem 1): for a program with at most n
// fibers and at most k steps, a bug of depth d (one that needs d ordering
// constraints between steps to show) is found by one run with probability
// at least 1 / (n * k^(d-1)). It holds when `steps` >= the run's real step
// count and `depth` >= d; the runner learns `steps` from a first run when
// none is given. A step is one pick of a worker fiber by the scheduler.
//
// Deterministic: every draw comes from the generator it is given (the
// world's scheduler sub-seed), in pick order.
#include <cstdint>
#include <map>
#include <vector>

#include "sim/base/rng.h"
#include "sim/schedule/scheduler.h"

namespace qdt::sim {

class PctPolicy : public SchedulePolicy {
 public:
  static constexpr uint32_t kDepthMax = 64;
  // 1 <= depth <= kDepthMax, steps >= 1. Draws the change points now.
  PctPolicy(Rng& rng, uint32_t depth, uint64_t steps);

  size_t pick(const std::vector<uint64_t>& ready) override;

  uint64_t steps_taken() const { return step_; }
  uint64_t fibers_seen() const { return fibers_seen_; }
  uint32_t change_points_hit() const { return changes_hit_; }
  // The paper's lower bound for a bug of this policy's depth with the
  // run's measured n (fibers seen) and k (max of steps and steps taken).
  double bound() const;
  const std::map<uint64_t, uint32_t>& change_points() const { return change_at_; }

 private:
  struct Priority {
    bool assigned = false;
    uint32_t band = 1;  // 1: not yet lowered; 0: lowered at a change point
    uint64_t key = 0;   // within the band, higher runs first
  };
  Priority& of(uint64_t ordinal);

  Rng& rng_;
  uint32_t depth_;
  uint64_t steps_;
  std::map<uint64_t, uint32_t> change_at_;  // step -> priority value i (1..depth-1)
  std::vector<Priority> priority_;          // by ordinal
  uint64_t step_ = 0;
  uint64_t last_ = SchedulePolicy::kLoop;  // the fiber that ran the last step
  uint64_t fibers_seen_ = 0;
  uint32_t changes_hit_ = 0;
};

}  // namespace qdt::sim
