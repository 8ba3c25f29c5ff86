#pragma once
// The `advance` step: virtual time moves on by `seconds` or `ms`.
#include <cstdint>

#include "sim/scenario/scenario.h"

namespace qdt::sim {

struct AdvanceArgs {
  int64_t ms = 0;
};

extern const StepKind advance_step;

}  // namespace qdt::sim
