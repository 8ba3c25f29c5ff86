#pragma once
// Bounded exhaustive schedule search: a depth-first walk of the tree of
// choice points (picks with two or more ready fibers), by re-execution.
// A schedule is the vector of choices; each run replays the prefix of the
// schedule being extended (exact: the run is deterministic, and every
// replayed choice point is checked against the one recorded) and then takes
// the lowest-ordinal choice at each new point. After a run, the deepest
// point with an untried alternative is branched.
//
// Reduction: Source-DPOR with sleep sets (Abdulla, Aronis, Jonsson,
// Sagonas, "Optimal dynamic partial order reduction", POPL 2014,
// Algorithm 1; Flanagan and Godefroid, POPL 2005, for dynamic backtracking
// by race analysis; Godefroid 1996 for sleep sets). A new point explores
// only its first choice; after each run the race analysis
// (sim/schedule/schedule_races.h) adds to a point's backtrack set a fiber that starts
// the reversed order of every race it finds, and only backtrack sets are
// branched. Sleep sets: once the subtree of choice `a` is explored, `a`
// sleeps while the siblings are explored, and stays asleep down their
// subtrees while only steps independent of a's pending step run
// (footprints, sim/schedule/footprint.h). Every Mazurkiewicz trace (class of runs
// equal up to the order of adjacent independent steps) is run at least
// once; a run in which every ready fiber sleeps is redundant (finished,
// judged, not counted as a distinct schedule). An alternative never
// explored at a point is counted as pruned. Sound because unknown
// footprints conflict with everything and readying orders steps.
//
// `run` executes the system once under the given policy and judges it; it
// must be deterministic given the policy's choices.
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/schedule/choice_policy.h"

namespace qdt::sim {

struct ScheduleVerdict {
  bool passed = true;
  std::string trace_hash;
  std::string outcome;  // what the run ended with, for distinct-outcome counts
  std::string detail;   // a failure's first line
};

struct ScheduleSearchOptions {
  uint64_t max_schedules = 1000;  // runs, redundant ones included
  bool reduce = true;
  uint64_t failures_kept = 10;    // failing schedules kept in full
};

struct ScheduleFailure {
  uint64_t run = 0;  // 1-based
  std::vector<uint64_t> choices;
  ScheduleVerdict verdict;
};

struct ScheduleSearchReport {
  uint64_t runs = 0;             // every run, redundant ones included
  uint64_t schedules = 0;        // runs that were not redundant
  uint64_t redundant_runs = 0;   // sleep-set blocked
  uint64_t pruned = 0;           // alternatives never explored (asleep, or not in a backtrack set)
  // Races whose reversal could not be placed (none expected): every ready
  // fiber at the point was explored instead.
  uint64_t analysis_fallbacks = 0;
  bool exhausted = false;        // the whole tree was explored within the bound
  uint64_t failed_runs = 0;
  uint64_t choice_points_max = 0;  // on one run
  uint64_t depth_max = 0;          // deepest tree point recorded
  std::set<std::string> trace_hashes;
  std::map<std::string, uint64_t> outcomes;  // outcome -> runs
  std::vector<ScheduleFailure> failures;     // the first failures_kept
  // The first run's choice points (the leftmost path): what was ready, what
  // ran, and the footprint of its step ("?" when unknown), so a report can
  // show why the reduction pruned what it pruned.
  std::vector<ChoicePolicy::Point> first_path;
};

using ScheduleRun = std::function<ScheduleVerdict(ChoicePolicy&)>;

// Knuth's estimate (1975) of the number of schedules (leaves of the tree
// without reduction): the mean, over `probes` runs that choose uniformly at
// every choice point (seeded, so the estimate is reproducible), of the
// product of the number of ready fibers at each. Unbiased; its spread is
// large for unbalanced trees, so it says "about how many", not "exactly".
struct TreeEstimate {
  uint64_t probes = 0;
  double schedules = 0;        // the mean of the products
  double schedules_min = 0;    // the smallest and largest product seen
  double schedules_max = 0;
  uint64_t choice_points_max = 0;
};
TreeEstimate estimate_schedules(const ScheduleRun& run, uint64_t probes, uint64_t seed);

// Throws std::logic_error when a replayed prefix met a different choice
// point than recorded (the run is not deterministic). `progress`, if set,
// is called after every run.
ScheduleSearchReport search_schedules(const ScheduleRun& run, const ScheduleSearchOptions& options,
                                      const std::function<void(const ScheduleSearchReport&)>& progress = {});

}  // namespace qdt::sim
