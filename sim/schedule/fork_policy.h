#pragma once
// Forking a run at a state (world.schedule mode "fork"): the first
// `after_picks` picks are made exactly as the random schedule makes them —
// the same generator (the world's scheduler sub-seed), the same draws, a
// draw only when two or more fibers are ready — so a deterministic run
// reaches the same state again; every later pick draws from a fresh
// generator seeded `fork_seed`. Replaying the prefix is the fork (moonpool's
// explorer does the same for rare states): a campaign re-runs a seed that
// first reached a rare reachability point many times, each fork exploring
// differently what follows that point (qdt check --fork-rare).
#include <cstdint>
#include <vector>

#include "sim/base/rng.h"
#include "sim/schedule/scheduler.h"

namespace qdt::sim {

class ForkPolicy : public SchedulePolicy {
 public:
  ForkPolicy(Rng& prefix, uint64_t after_picks, uint64_t fork_seed);
  size_t pick(const std::vector<uint64_t>& ready) override;
  uint64_t picks() const { return picks_; }

 private:
  Rng& prefix_;
  Rng fresh_;
  uint64_t after_picks_;
  uint64_t picks_ = 0;
};

}  // namespace qdt::sim
