#pragma once
// A failure record's structured fields (rule, explanation, expected, actual:
// sim/scenario/run_result.h, a campaign's failure records) as the pages show
// them, read from the fields and never from the prose detail.
#include <nlohmann/json.hpp>
#include <string>

namespace qdt::reports {

// HTML: the rule's id in <code> and its explanation, then "expected …, got
// …" on a line of its own where the record has them; "" when the record
// names no rule of a catalogue (a summary written before rule ids carries a
// `rule` without an `explanation`: it is not shown).
std::string failure_rule_html(const nlohmann::json& failure);

// Markdown, on one line: "rule `id`: explanation" and "expected …, got …"; "" as above.
std::string failure_rule_md(const nlohmann::json& failure);

}  // namespace qdt::reports
