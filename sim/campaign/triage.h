#pragma once
// What groups a campaign's failures (qdt check's summary): the rule broken
// (its id, properties/failure_rules.h) and the kind of step that failed it,
// so twenty seeds of one bug are one line and two bugs caught by one
// property are two. Each group is headed by the rule's explanation as its
// failure record carries it.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace qdt::sim {

// A failure record's cause: "model-agreement/duplicate-answered-queued · push".
// A record without a rule id (a summary written before rule ids, whose
// `rule` is the failure's text with what varies taken out) keeps that older
// grouping: "property · step kind · rule"; one with neither, the property and
// the step kind.
std::string failure_cause(const nlohmann::json& failure);

// The op of the step `step` names in `scenario` (an id, or a JSON path such
// as "/steps/1/steps/0"); "" when it names none.
std::string failing_step_kind(const nlohmann::json& scenario, const std::string& step);

// Prints a campaign's failures grouped by cause, most seeds first, each with
// one replay (a shrunk file where there is one, else the command that shrinks
// one), then every failing seed nobody shrank with the command that shrinks it.
void print_triage(std::ostream& out, const nlohmann::json& failures, int max_shrinks);

}  // namespace qdt::sim
