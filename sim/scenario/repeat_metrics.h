#pragma once
// Measurements of repeated keys over a run's history, for reports and sweeps
// (studies of retries against the window, and of the shipped design's holes):
// how often a key already stored in a partition was stored again, and how
// many of those re-stores landed while the earlier copy was still inside the
// window in force (a double write: what the contract forbids). A measurement,
// not a verdict: the no-double-write property judges; this only counts, so a
// sweep can chart "double writes per million pushes" next to the reference's 0.
#include <cstdint>

#include "properties/history.h"

namespace qdt::sim {

struct RepeatCounts {
  int64_t frames_stored = 0;   // every frame of every committed push
  int64_t repeats_stored = 0;  // frames whose key this partition had stored before (any age)
  int64_t double_writes = 0;   // of those, the earlier copy was at most window old (window > 0)
};

// Counts over the committed push events in history order. The window is the
// push's own (PushEvent::window_seconds, read under the write lock); the age
// is storage time between the newest earlier copy's commit and this one.
RepeatCounts count_repeats(const history::History& history);

}  // namespace qdt::sim
