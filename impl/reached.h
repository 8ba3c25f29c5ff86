#pragma once
// Named reachability points ("sometimes" assertions, in the manner of
// Antithesis): QDT_REACHED("cache.evicted_during_hydration") marks a state a
// reviewer wants to see exercised. A campaign counts the seeds that reached
// each point (sim/scenario/coverage.h); a point no seed reached is a state the suite
// never tested.
//
// An observation, never a decision: marking reads nothing the caller uses and
// changes no state of the system, no trace line and no randomness, so a run
// with an observer installed behaves exactly as one without. Without an
// observer (production, unit tests) a mark is one thread-local load.
//
// Every name must be in the catalogue (sim/scenario/reach_points.h); the observer the
// simulation installs checks that, and a ctest greps the sources for marks
// the catalogue lacks.
#include <cstddef>
#include <string_view>

namespace qdt::impl {

class ReachObserver {
 public:
  virtual ~ReachObserver() = default;
  virtual void reached(std::string_view point) noexcept = 0;
};

// Per thread (a world runs on one thread); returns the previous observer.
ReachObserver* set_reach_observer(ReachObserver* observer) noexcept;

void mark_reached(std::string_view point) noexcept;

// Volume (docs/semantics.md §10.4): the sizes past which a cache is marked as
// having held or been asked about bulk, so a campaign shows its capacities crossed.
inline constexpr size_t kVolumeHashes = 1000;   // hashes of one partition
inline constexpr size_t kVolumeRunCommits = 32; // commits of one partition inside one window

}  // namespace qdt::impl

#define QDT_REACHED(point) ::qdt::impl::mark_reached(point)
