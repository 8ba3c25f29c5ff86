#pragma once
// The race analysis of dynamic partial order reduction: which choice points
// of one run must also be explored with another fiber first, so that every
// order of dependent steps is run once (Source-DPOR: Abdulla, Aronis,
// Jonsson, Sagonas, "Optimal dynamic partial order reduction", POPL 2014,
// Algorithm 1; the search that uses it is sim/schedule/schedule_search.h).
//
// Happens-before over a run's steps (ChoicePolicy::steps) is the transitive
// closure of: program order (two steps of one fiber), readying (the step
// that spawned, woke or timed a fiber comes before that fiber's next step),
// and dependence (an earlier step whose footprint is not independent of a
// later one's, sim/schedule/footprint.h; the event loop's steps are unknown, so each
// is a barrier, which is exact: the loop runs only when no fiber is ready,
// so nothing after it could have run before it).
//
// Two steps e < e' race when they are of different fibers, dependent,
// e' was not readied by e, and no third step lies between them in
// happens-before. For a race, v is the steps after e that do not happen
// after e, then e'; a fiber whose first step in v happens after no other
// step of v (an initial of v) can be picked at e's choice point and starts
// an execution in which e' runs before e. Source-DPOR adds one such fiber
// to that point's backtrack set unless one is there already.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/schedule/choice_policy.h"

namespace qdt::sim {

struct Reversal {
  size_t point = 0;               // the choice point e was picked at (an index into ChoicePolicy::points)
  std::vector<uint64_t> initials;  // fibers (ordinals, ascending) that start the reversed order
};

// Every race of the run whose steps are `steps`, among the steps from index
// `from` on as the later step (earlier races were found by the run that first
// executed those steps: a replayed prefix repeats them exactly).
std::vector<Reversal> find_reversals(const std::vector<ChoicePolicy::Step>& steps, size_t from = 0);

}  // namespace qdt::sim
