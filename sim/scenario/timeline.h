#pragma once
// The timeline document of one run: what a person reproducing an incident
// reads (reports/replay_report.h renders it as HTML). A pure function of the
// scenario and its RunOutcome — no wall clock, no randomness — so one
// scenario and seed give the same document byte for byte.
//
// {"kind": "qdt-timeline", "scenario", "description", "file", "seed",
//  "variant", "passed", "trace_hash", "commit" (when known), "command",
//  "virtual_duration_ms",
//  "failures": [{"kind", "property", "step", "partition", "detail", "events": [event index...],
//                "rule", "explanation", "event", "expected", "actual" (each when known, RunFailure)}],
//  "steps":   [{"id", "path", "depth", "op", "summary", "started_ms", "ended_ms",
//               "responses": [{"index", "status", "message_id", "transaction_id"}], "answer",
//               "faults": [text...], "highlighted"}],
//  "events":  [{"index", "kind", "at_ms" (null when not recorded), "partition", "step", "summary",
//               "model", "agrees" (push events: the model's verdict beside storage's),
//               "highlighted", "in_failing_partition"}],
//  "offsets": [{"partition", "points": [{"at_ms", "offset", "kind": "stored"|"duplicate", "step",
//                                        "window_ms" (stored only: the window in force)}]}],
//             (stored: a queued push's offsets at its storage time; duplicate: the
//             offset a producer's duplicate answer named, when the broker answered)
//  "attempts", "fault_spans": as sim/scenario/timeline_story.h describes them
//  "model_answers": [{"step", "request", "item", "partition", "transaction_id", "got_status",
//                     "got_message_id", "model_statuses", "model_message_ids", "model_on_arrival", "because",
//                     "agrees", "highlighted"}]}
//
// Times are virtual ms since the run began. Highlighting is decided here,
// not by the renderer: a step is highlighted when a failure names it; an
// event when it belongs to a failing step (in the failure's partition, when
// the failure names one), is the failure's event, or its detail names it ("event 4"); an item
// answer when its step fails or it disagrees with the model.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sim/scenario/runner.h"
#include "sim/scenario/scenario.h"

namespace qdt::sim {

struct TimelineContext {
  std::string command;                // the one command line that replays the run
  std::optional<std::string> commit;  // QDT_COMMIT, when set
};

nlohmann::json timeline_document(const Scenario& scenario, const RunOutcome& outcome,
                                 const TimelineContext& context);

}  // namespace qdt::sim
