#pragma once
// Checkers over a recorded history (docs/semantics.md §5). Each property is a named
// function; `check_history` runs them all. A failure names the property, the
// step, the partition ("queue/partition") and the offending events.
#include <string>
#include <vector>

#include "properties/history.h"

namespace qdt::properties {

struct Failure {
  std::string property;
  std::string step;       // the step id of the offending request/ack/read ("" when none)
  std::string partition;  // "queue/partition" ("" when not partition-bound)
  std::string detail;     // human-readable: what was expected, what happened, which events
};

// Names of every property this build checks, in a fixed order.
const std::vector<std::string>& property_names();

// Runs one property by name; throws std::invalid_argument for an unknown name.
std::vector<Failure> check_property(const std::string& name, const history::History& history);

// Runs every property, in property_names() order.
std::vector<Failure> check_history(const history::History& history);

}  // namespace qdt::properties
