#pragma once
// A schedule written down: the fiber chosen at each choice point (a pick
// with two or more ready fibers), by ordinal. Beyond the listed choices the
// policy picks the lowest-ordinal ready fiber, so a list is a complete,
// replayable schedule (a world's `schedule: {"mode": "choices"}`).
//
// It also serves the bounded exhaustive search (sim/schedule/schedule_search.h): it
// records every choice point it met (the ready fibers, the choice, the
// footprint of the chosen step), and keeps a sleep set (Godefroid): from
// the last listed choice on, fibers whose pending step was already explored
// from an equivalent state are not picked while only steps independent of
// theirs run. When every ready fiber sleeps the run is redundant (blocked):
// it is finished with lowest-ordinal picks and records nothing more.
// For the search's race analysis it also records every step up to then (the
// event loop's included): who ran, its footprint, which step readied it.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/schedule/footprint.h"
#include "sim/base/rng.h"
#include "sim/schedule/scheduler.h"

namespace qdt::sim {

class ChoicePolicy : public SchedulePolicy {
 public:
  // A fiber whose pending step has the given footprint.
  struct Sleeper {
    uint64_t fiber = 0;
    Footprint footprint;
  };
  struct Point {
    std::vector<uint64_t> ready;  // ordinals, ascending
    uint64_t chosen = 0;
    Footprint chosen_footprint;   // of the step the chosen fiber ran from here
    std::vector<Sleeper> sleep;   // the sleep set when the point was met (search only)
  };
  struct Step {
    uint64_t fiber = 0;  // ordinal, or kLoop
    Footprint footprint;
    uint64_t readied_in = kNoStep;  // the step that made the fiber ready (SchedulePolicy::step_ended)
    size_t point = SIZE_MAX;        // the choice point it was picked at (an index into points()), if any
  };

  // `choices`: the first choice points' picks. `sleep_at_last`: the sleep
  // set in force from the last listed choice on (empty: no reduction).
  explicit ChoicePolicy(std::vector<uint64_t> choices, std::vector<Sleeper> sleep_at_last = {});

  // Beyond the listed choices, pick uniformly with `rng` instead of the
  // lowest ordinal (the tree-size estimate's random probes). Null: lowest.
  void extend_randomly(Rng* rng) { extend_rng_ = rng; }

  size_t pick(const std::vector<uint64_t>& ready) override;
  void step_ended(uint64_t ordinal, const Footprint& footprint, uint64_t readied_in) override;

  // Every choice point met, listed ones included (none after a block).
  const std::vector<Point>& points() const { return points_; }
  // Every step up to a block, numbered as the scheduler numbers them.
  const std::vector<Step>& steps() const { return steps_; }
  // The full schedule taken: one ordinal per choice point.
  const std::vector<uint64_t>& taken() const { return taken_; }
  bool blocked() const { return blocked_; }
  // A listed choice that named a fiber that was not ready ("" if none); the
  // policy then picked the lowest ordinal and the run is not that schedule.
  const std::string& error() const { return error_; }
  uint64_t choice_points() const { return choice_points_; }

 private:
  bool asleep(uint64_t fiber) const;

  std::vector<uint64_t> choices_;
  std::vector<Sleeper> sleep_;
  bool reducing_ = false;  // the sleep set is in force
  std::vector<Point> points_;
  std::vector<uint64_t> taken_;
  std::vector<uint64_t> sorted_;  // scratch
  uint64_t choice_points_ = 0;
  size_t pending_point_ = SIZE_MAX;  // the point whose chosen step is running
  size_t picked_point_ = SIZE_MAX;   // the point the running worker step was picked at, if any
  std::vector<Step> steps_;
  bool blocked_ = false;
  Rng* extend_rng_ = nullptr;
  std::string error_;
};

}  // namespace qdt::sim
