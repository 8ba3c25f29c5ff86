// dedup-off (SPEC 5, 2.4): with window 0 no probe runs and every item is
// queued; with a window the probe is skipped only when the watermark or
// txns_start leaves nothing to probe (last_offset <= max(p_verified,
// txns_start - 1)).
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <variant>

#include "properties/checks.h"
#include "properties/failure_sink.h"
#include "properties/step_index.h"

namespace qdt::properties {

std::vector<Failure> check_dedup_off(const history::History& history) {
  FailureSink sink("dedup-off");
  const StepIndex steps(history);
  std::map<std::string, int64_t> windows;
  std::map<std::pair<std::string, std::string>, int64_t> txns_start;  // as the last purge step left it
  for (size_t e = 0; e < history.events.size(); ++e) {
    const history::Event& event = history.events[e];
    if (const auto* configure = std::get_if<history::ConfigureEvent>(&event)) {
      windows[configure->queue] = configure->window_seconds;
    } else if (const auto* purge = std::get_if<history::PurgeEvent>(&event)) {
      txns_start[{purge->queue, purge->partition}] = purge->txns_start_after;
    } else if (const auto* push = std::get_if<history::PushEvent>(&event); push && !push->failed) {
      auto w = windows.find(push->queue);
      const int64_t window = w == windows.end() ? 3600 : w->second;
      const std::string label = partition_label(push->queue, push->partition);
      const std::string& step = steps.step_of(*push, 0);
      const std::string at = "event " + std::to_string(e) + " (window " + std::to_string(window) + " s): ";
      if (window == 0) {
        if (push->probe_ran || push->rows_scanned != 0) {
          sink.add(step, label,
                   at + "the probe ran (" + std::to_string(push->rows_scanned) + " sidecar rows scanned)");
        }
        if (!push->queued || !push->duplicates.empty()) {
          sink.add(step, label,
                   at + "answered duplicate for " + std::to_string(push->duplicates.size()) +
                       " frames; with the window off every item is queued");
        }
        continue;
      }
      auto t = txns_start.find({push->queue, push->partition});
      const int64_t from = std::max(push->p_verified, (t == txns_start.end() ? 0 : t->second) - 1);
      if (push->last_offset_before > from && !push->probe_ran) {
        sink.add(step, label,
                 at + "the probe was skipped though last_offset " + std::to_string(push->last_offset_before) +
                     " is past max(p_verified, txns_start - 1) = " + std::to_string(from));
      }
    }
  }
  return sink.take();
}

}  // namespace qdt::properties
