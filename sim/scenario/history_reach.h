#pragma once
// Reachability points that only a whole run can tell (sim/scenario/reach_points.h):
// states defined by how events relate in time — an original exactly at the
// window's edge, a retry racing its own first attempt, a purge while a push to
// its partition is in flight. Read from the recorded history after the run,
// and marked through the same QDT_REACHED as the points in the code, so a
// campaign counts them alike. Reads the history only.
#include "properties/history.h"

namespace qdt::sim {

void mark_history_points(const history::History& history);

}  // namespace qdt::sim
