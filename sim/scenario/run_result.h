#pragma once
// The result of one scenario run (docs/semantics.md §4) as the library reads
// it; `to_json` writes the result object files, --json and reports carry.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "properties/failure_rules.h"

namespace qdt::sim {

struct RunFailure {
  std::string kind;                      // "expectation", "property" or "generator"
  std::optional<std::string> property;   // the property broken; none for an expectation
  std::string step;
  std::optional<std::string> partition;  // property failures name one ("" when none applies)
  std::string detail;
  // The likely cause in words (properties/diagnosis.h), when the history shows one.
  std::optional<std::string> why;
  // The rule broken (properties/failure_rules.h): written as its id and
  // explanation. None only for a property's "N more failures not shown" line.
  std::optional<properties::Rule> rule;
  std::optional<size_t> event;  // the offending event of the history, when one is
  std::string expected;         // the answer the rule required, in a few words; "" when the rule has none
  std::string actual;           // the answer given

  // The property, or "expectation" for an unmet expectation.
  std::string signature() const { return property.value_or("expectation"); }
  nlohmann::json to_json() const;
  // The structured fields alone (rule, explanation, event, expected, actual),
  // added to `out` where present: what a campaign's failure record carries too.
  void add_rule_fields(nlohmann::json& out) const;
};

struct RunResult {
  std::string scenario;
  std::string file;
  uint64_t seed = 0;
  std::string variant = "none";
  bool passed = false;
  std::string trace_hash;
  // Step id -> the step's response as the broker or the admin path answered
  // it; ids the scenario wrote only, empty when RunOptions::step_responses is off.
  std::map<std::string, nlohmann::json> step_responses;
  std::vector<RunFailure> failures;
  // Named counters (sim/scenario/run_metrics.h); sweeps name them in their files.
  nlohmann::json metrics = nlohmann::json::object();
  std::vector<std::string> reached;                               // reachability points reached
  std::map<std::string, uint64_t> reached_at_pick;  // point -> picks before it was first reached
  // How a run that was not random was scheduled (World::schedule_report); null for a random one.
  nlohmann::json schedule;
  // "queue/partition" -> messages stored at the end (the final reads); empty
  // when a transaction was left open. Written into promoted files' `expect`,
  // not into to_json.
  std::map<std::string, int64_t> stored;

  nlohmann::json to_json() const;
};

}  // namespace qdt::sim
