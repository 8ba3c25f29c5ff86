#pragma once
// A campaign's failures grouped as its page leads with them: by the cause
// the campaign recorded on each failure (`cause`: the rule broken and the
// kind of step, sim/campaign/triage.h), the property alone for a record
// without one; most seeds first, then first seen first.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace qdt::reports {

struct FailureGroup {
  std::string cause;
  std::vector<size_t> members;     // indices into the failures, in their order
  std::vector<std::string> profiles;  // sorted, each once
  // The shrunk member with the fewest steps (its story is told), nullopt when none was shrunk.
  std::optional<size_t> smallest;
};

std::vector<FailureGroup> failure_groups(const nlohmann::json& failures);

}  // namespace qdt::reports
