#pragma once
// What groups a campaign's failures (qdt check's summary): the property, the
// kind of step that failed it, and the rule broken, which is the failure's
// text with what varies from seed to seed (numbers, ids, times, names in
// quotes, the events in parentheses) taken out, so twenty seeds of one bug
// are one line and two bugs caught by one property are two.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace qdt::sim {

// "model answers duplicate, storage answered queued from offset #" from
// "event 23 (at 1767229200081 ms): model answers duplicate [frame 1 repeats
// offset 5], storage answered queued from offset 6".
std::string failure_rule(const std::string& detail);

// The op of the step `step` names in `scenario` (an id, or a JSON path such
// as "/steps/1/steps/0"); "" when it names none.
std::string failing_step_kind(const nlohmann::json& scenario, const std::string& step);

// Prints a campaign's failures grouped by cause, most seeds first, each with
// one replay (a shrunk file where there is one, else the command that shrinks
// one), then every failing seed nobody shrank with the command that shrinks it.
void print_triage(std::ostream& out, const nlohmann::json& failures, int max_shrinks);

}  // namespace qdt::sim
