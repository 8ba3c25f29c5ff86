#pragma once
// What each property had to judge (docs/semantics.md §5): of the events of
// the kind it reads, how many answered. A failed call leaves nothing to
// judge, so a campaign in which a property judged none of its events is
// hollow, not a pass (sim/campaign/campaign_merge.h).
#include <cstdint>
#include <string>
#include <vector>

#include "properties/history.h"

namespace qdt::properties {

struct Evidence {
  std::string property;
  std::string events;  // what it reads, plural: "storage pushes", "acks"
  int64_t of = 0;      // events of that kind in the history
  int64_t judged = 0;  // of them, the ones that answered something to judge
};

// One entry per property of property_names() that reads answers, in that
// order. liveness, durability and deadlock-free are absent: they judge
// failed and unfinished calls themselves.
std::vector<Evidence> evidence_of(const history::History& history);

// The properties absent from evidence_of, each with why.
const std::vector<std::pair<std::string, std::string>>& properties_judging_failures();

}  // namespace qdt::properties
