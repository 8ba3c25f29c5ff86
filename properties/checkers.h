#pragma once
// Checkers over a recorded history (docs/semantics.md §5). Each property is a named
// function; `check_history` runs them all. A failure names the property, the
// rule broken (properties/failure_rules.h), the step, the partition
// ("queue/partition"), the offending event, and what was expected and found.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "properties/failure_rules.h"
#include "properties/history.h"

namespace qdt::properties {

// Checkers fill the fields after `rule` (FailureSink::add sets property and rule).
struct Failure {
  std::string property;
  // The rule broken; none only for the closing "N more failures not shown"
  // line of a sink that reached its cap, which is a count, not a finding.
  std::optional<Rule> rule;
  std::string step;             // the step id of the offending request/ack/read ("" when none)
  std::string partition;        // "queue/partition" ("" when not partition-bound)
  std::optional<size_t> event;  // index into History::events of the offending event, when one is
  // The answer the rule required and the one given, in a few words
  // ("duplicate of offset 5", "queued at offset 6"); "" where the rule has no such pair.
  std::string expected;
  std::string actual;
  std::string detail;  // human-readable: what was expected, what happened, which events
};

// Names of every property this build checks, in a fixed order.
const std::vector<std::string>& property_names();

// Runs one property by name; throws std::invalid_argument for an unknown name.
std::vector<Failure> check_property(const std::string& name, const history::History& history);

// Runs every property, in property_names() order.
std::vector<Failure> check_history(const history::History& history);

}  // namespace qdt::properties
