#pragma once
// The story parts of a timeline document (sim/scenario/timeline.h) that the
// offsets chart draws beside the offsets: every delivery of every push as
// its own attempt, and the intervals in which a fault acted. Pure functions
// of the history and the step times, on virtual ms since the run began.
//
//  "attempts":    [{"step", "attempt" (1, 2, ...), "partition", "at_ms" (the broker received it),
//                   "offset" (stored by it or named in its answer; null when neither), "outcome"}]
//  "fault_spans": [{"from_ms", "to_ms", "label", "step"}]
#include <nlohmann/json.hpp>

#include "sim/scenario/runner.h"
#include "sim/scenario/scenario.h"

namespace qdt::sim {

// One entry per delivered request (a request lost on the way reached no
// broker at any time and is left to the steps table).
nlohmann::json attempts_of(const history::History& h);

// A lost or late response spans from the broker's answer to the next
// attempt; a broker crash with a request in flight from its receipt to the
// crash; a failed storage transaction is an instant; and a fault step (a
// crash, a storage or network fault, an eviction) spans its own step time.
nlohmann::json fault_spans_of(const Scenario& scenario, const RunOutcome& outcome);

}  // namespace qdt::sim
