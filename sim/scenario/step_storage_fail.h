#pragma once
// The `storage_fail` step: the next `count` storage transactions of a kind
// fail at a statement with a code (sim/faults/storage_faults.h).
#include "sim/faults/storage_faults.h"
#include "sim/scenario/scenario.h"

namespace qdt::sim {

struct StorageFailArgs {
  StorageFault fault;  // count, target (op), after_statements, code
};

extern const StepKind storage_fail_step;

}  // namespace qdt::sim
