// no-double-write (SPEC 5): two stored messages of one partition with one key
// are never both inside one window, unless the first's sidecar row was purged,
// or the window was 0, when the second committed.
//
// Before each queued push is applied, every frame is compared with the live
// (unpurged) earlier occurrences of its key, newest first: created_at does not
// decrease along offsets (the offsets property), so the newest live occurrence
// decides and the scan stops at the first one outside the window.
#include <map>
#include <string>
#include <variant>

#include "properties/checks.h"
#include "properties/failure_sink.h"
#include "properties/step_index.h"
#include "properties/storage_replay.h"

namespace qdt::properties {

std::vector<Failure> check_no_double_write(const history::History& history) {
  FailureSink sink("no-double-write");
  const StepIndex steps(history);
  StorageReplay replay;
  for (size_t e = 0; e < history.events.size(); ++e) {
    const auto* push = std::get_if<history::PushEvent>(&history.events[e]);
    if (push && !push->failed && push->queued) {
      const int64_t window = replay.window_seconds(push->queue);
      const PartitionReplay* partition = replay.find(push->queue, push->partition);
      const int64_t oldest_ms = push->now_ms - window * 1000;
      std::map<std::string, size_t> in_segment;  // txn -> first frame index in this push
      for (size_t j = 0; window > 0 && j < push->frames.size(); ++j) {
        const history::FrameRecord& f = push->frames[j];
        const int64_t offset = push->base_offset + static_cast<int64_t>(j);
        const std::string prefix = "txn " + f.transaction_id + " stored at offset " + std::to_string(offset) +
                                   " by event " + std::to_string(e) + " (now " + std::to_string(push->now_ms) +
                                   " ms, window " + std::to_string(window) + " s)";
        if (auto [it, first] = in_segment.try_emplace(f.transaction_id, j); !first) {
          sink.add(steps.step_of(*push, j), partition_label(push->queue, push->partition),
                   prefix + " together with offset " + std::to_string(push->base_offset + static_cast<int64_t>(it->second)) +
                       " of the same segment");
          continue;
        }
        if (partition == nullptr) continue;
        const std::set<int64_t>& live = partition->live_offsets(f.transaction_id);
        for (auto it = live.rbegin(); it != live.rend(); ++it) {
          const StoredMessage* earlier = partition->at(*it);
          if (earlier->created_at_ms < oldest_ms) break;
          sink.add(steps.step_of(*push, j), partition_label(push->queue, push->partition),
                   prefix + " while offset " + std::to_string(earlier->offset) + " (id " + earlier->message_id +
                       ", created at " + std::to_string(earlier->created_at_ms) + " ms by event " +
                       std::to_string(earlier->event_index) + ", step " + steps.step_of(earlier->origin_request) +
                       ") was still in the window with its sidecar row present");
          break;
        }
      }
    }
    replay.apply(history.events[e], e);
  }
  return sink.take();
}

}  // namespace qdt::properties
