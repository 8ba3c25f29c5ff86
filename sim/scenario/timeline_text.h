#pragma once
// Short texts for the timeline document (sim/scenario/timeline.h): one line per
// scenario step (its arguments) and per history event (what storage did),
// written for a person scanning a table, not for parsing.
#include <cstdint>
#include <optional>
#include <string>

#include "properties/history.h"
#include "sim/scenario/scenario.h"

namespace qdt::sim {

// "broker 0, producer p, 2 items: orders/Default a, orders/Default b; retry 3 x 1000 ms".
std::string step_summary(const Step& step);

// True for the ops that inject a fault or change the world under the
// producers (crash, skew, network, storage_fail, configure, advance, ...).
bool is_fault_step(Op op);

struct EventText {
  std::string kind;       // "push", "fetch", "configure", "delete_segment", "retention", "purge", "ack", "read"
  std::string partition;  // "queue/partition", or "queue" for configure
  std::optional<int64_t> at_ms;  // storage time since the run began, when the event records one
  std::string summary;
};

EventText event_text(const history::Event& event);

// A storage fault as "statement 2, SQLITE_IOERR".
std::string fault_text(const history::FaultRecord& fault);

}  // namespace qdt::sim
