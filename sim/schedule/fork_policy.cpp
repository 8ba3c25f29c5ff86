#include "sim/schedule/fork_policy.h"

#include <cassert>

namespace qdt::sim {

ForkPolicy::ForkPolicy(Rng& prefix, uint64_t after_picks, uint64_t fork_seed)
    : prefix_(prefix), fresh_(fork_seed), after_picks_(after_picks) {}

size_t ForkPolicy::pick(const std::vector<uint64_t>& ready) {
  assert(!ready.empty());
  // `ready` lists the fibers in the scheduler's own order, so an index drawn
  // as SeededScheduler draws it without a policy picks the same fiber.
  Rng& rng = picks_ < after_picks_ ? prefix_ : fresh_;
  ++picks_;
  return ready.size() == 1 ? 0 : static_cast<size_t>(rng.below(ready.size()));
}

}  // namespace qdt::sim
