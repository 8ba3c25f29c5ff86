#pragma once
// The `crash_storage` step: storage loses power, drops its unsynced writes
// and recovers from its journal (file storage only).
#include "sim/scenario/scenario.h"

namespace qdt::sim {

struct CrashStorageArgs {
  bool torn = true;  // the last unsynced write keeps a seeded prefix
  bool synchronous_off = false;  // nothing was ever synced: the loss takes every commit
};

extern const StepKind crash_storage_step;

}  // namespace qdt::sim
