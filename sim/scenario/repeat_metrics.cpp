#include "sim/scenario/repeat_metrics.h"

#include <map>
#include <string>
#include <tuple>
#include <variant>

namespace qdt::sim {

RepeatCounts count_repeats(const history::History& history) {
  RepeatCounts counts;
  // (queue, partition, transaction id) -> storage time of its newest stored copy.
  std::map<std::tuple<std::string, std::string, std::string>, int64_t> newest_ms;
  for (const history::Event& event : history.events) {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (push == nullptr || push->failed || !push->queued) continue;
    for (const history::FrameRecord& frame : push->frames) {
      ++counts.frames_stored;
      auto [it, first] = newest_ms.try_emplace({push->queue, push->partition, frame.transaction_id}, push->now_ms);
      if (first) continue;
      ++counts.repeats_stored;
      // Inclusive edge, as the probe's created_at >= now - window.
      if (push->window_seconds > 0 && it->second >= push->now_ms - push->window_seconds * 1000) ++counts.double_writes;
      it->second = push->now_ms;
    }
  }
  return counts;
}

}  // namespace qdt::sim
