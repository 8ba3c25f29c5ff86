#pragma once
// What a campaign's properties judged (properties/evidence.h), from its
// summed metrics: no verdict is hollow (docs/semantics.md §9.4).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace qdt::sim {

// The properties that judged none of their events although some happened,
// one line per kind of event, e.g. "judged 0 of 412 acks: every one failed,
// so ack-resolution judged nothing". Non-empty fails the campaign.
std::vector<std::string> hollow_properties(const nlohmann::json& totals);

// {"model-agreement": {"of": N, "judged": M}, ...} for the summary's "judged".
nlohmann::json judged_counts(const nlohmann::json& totals);

// "12 of 340 storage pushes, 3 of 20 acks": the events no property could
// judge (failed calls), per kind; "" when every event was judged.
std::string unjudged_text(const nlohmann::json& totals);

// "no retention steps, so retention-model judged nothing; ...": the
// properties whose events the campaign never drew (not a failure: the
// profiles drew none); "" when every property had events.
std::string idle_properties_text(const nlohmann::json& totals);

}  // namespace qdt::sim
