#include "properties/power_loss.h"

#include <algorithm>

namespace qdt::properties {

bool loses_every_commit(const history::StorageCrash& crash) { return crash.synchronous == "off"; }

std::vector<size_t> storage_emptied_at(const history::History& history) {
  std::vector<size_t> out;
  for (const history::StorageCrash& crash : history.storage_crashes) {
    if (loses_every_commit(crash)) out.push_back(crash.event_index);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool emptied_between(const history::History& history, int64_t after_ms, int64_t before_ms) {
  return std::any_of(history.storage_crashes.begin(), history.storage_crashes.end(),
                     [&](const history::StorageCrash& crash) {
                       return loses_every_commit(crash) && after_ms < crash.at_ms && crash.at_ms < before_ms;
                     });
}

}  // namespace qdt::properties
