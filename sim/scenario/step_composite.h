#pragma once
// The composite steps, which run their children: `parallel` (concurrently),
// `sequence` (in order) and `repeat` (in order, `times` times).
#include <cstdint>

#include "sim/scenario/scenario.h"

namespace qdt::sim {

struct RepeatArgs {
  int64_t times = 0;  // runs its children in order this many times
};

extern const StepKind parallel_step;
extern const StepKind sequence_step;
extern const StepKind repeat_step;

}  // namespace qdt::sim
