#include "reports/failure_groups.h"

#include <algorithm>
#include <map>
#include <set>

namespace qdt::reports {

std::vector<FailureGroup> failure_groups(const nlohmann::json& failures) {
  std::vector<FailureGroup> groups;
  std::map<std::string, size_t> index_of;
  std::vector<std::set<std::string>> profiles;
  for (size_t i = 0; i < failures.size(); ++i) {
    const nlohmann::json& f = failures[i];
    const std::string cause = f.value("cause", f.value("property", std::string("?")));
    auto [it, fresh] = index_of.try_emplace(cause, groups.size());
    if (fresh) {
      groups.push_back({cause, {}, {}, std::nullopt});
      profiles.emplace_back();
    }
    FailureGroup& g = groups[it->second];
    g.members.push_back(i);
    profiles[it->second].insert(f.value("profile", std::string()));
    if (!f.contains("file") || !f.contains("steps")) continue;
    const auto steps = f["steps"].get<uint64_t>();
    if (!g.smallest || steps < failures[*g.smallest]["steps"].get<uint64_t>()) g.smallest = i;
  }
  for (size_t i = 0; i < groups.size(); ++i) groups[i].profiles.assign(profiles[i].begin(), profiles[i].end());
  std::stable_sort(groups.begin(), groups.end(),
                   [](const FailureGroup& x, const FailureGroup& y) { return x.members.size() > y.members.size(); });
  return groups;
}

}  // namespace qdt::reports
