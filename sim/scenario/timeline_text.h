#pragma once
// Short texts for the timeline document (sim/scenario/timeline.h): one line per
// history event (what storage did), written for a person scanning a table, not
// for parsing. A step's line is its kind's (sim/scenario/step_kinds.h).
#include <cstdint>
#include <optional>
#include <string>

#include "properties/history.h"

namespace qdt::sim {

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
