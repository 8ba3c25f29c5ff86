#include "properties/diagnosis.h"

#include <variant>

namespace qdt::properties {

std::optional<std::string> likely_cause(const history::History& h, const std::string& property,
                                        const std::string& partition) {
  // A stale watermark writes a repeat twice or answers it against the wrong
  // original: what model-agreement, no-double-write and duplicate-id see.
  if (property != "model-agreement" && property != "no-double-write" && property != "duplicate-id") {
    return std::nullopt;
  }
  for (const history::Event& e : h.events) {
    const auto* p = std::get_if<history::PushEvent>(&e);
    if (p == nullptr || p->failed || p->p_verified < 0 || p->queue + "/" + p->partition != partition) continue;
    if (p->window_seconds_assumed < 0 || p->window_seconds_assumed >= p->window_seconds) continue;
    return "the broker's learnt window was stale: it vouched for offsets up to " + std::to_string(p->p_verified) +
           " with a window of " + std::to_string(p->window_seconds_assumed) + " s while the queue's window was " +
           std::to_string(p->window_seconds) +
           " s, so older stored keys were never in its cache, and storage used the watermark anyway: only the "
           "window it was computed with lets storage refuse it (the window guard, docs/semantics.md §2.11), "
           "which this SQL or variant does not check";
  }
  return std::nullopt;
}

}  // namespace qdt::properties
