// no-false-duplicate (SPEC 5): every duplicate has an original: same key,
// same partition, committed before the probe, its sidecar row present and
// created_at >= now - window.
#include <string>
#include <variant>

#include "properties/checks.h"
#include "properties/failure_sink.h"
#include "properties/step_index.h"
#include "properties/storage_replay.h"

namespace qdt::properties {

std::vector<Failure> check_no_false_duplicate(const history::History& history) {
  FailureSink sink("no-false-duplicate");
  const StepIndex steps(history);
  StorageReplay replay;
  for (size_t e = 0; e < history.events.size(); ++e) {
    const auto* push = std::get_if<history::PushEvent>(&history.events[e]);
    if (push && !push->failed) {
      const std::string label = partition_label(push->queue, push->partition);
      const std::string where = "event " + std::to_string(e) + " (now " + std::to_string(push->now_ms) + " ms)";
      if (!push->queued && push->duplicates.empty()) {
        sink.add(steps.step_of(*push, 0), label, where + " answered duplicate without naming any original");
      }
      const int64_t window = replay.window_seconds(push->queue);
      const PartitionReplay* partition = replay.find(push->queue, push->partition);
      for (const auto& [index, offset] : push->duplicates) {
        const std::string& step = steps.step_of(*push, index);
        if (index >= push->frames.size()) {
          sink.add(step, label, where + " lists frame " + std::to_string(index) + " of a " +
                                    std::to_string(push->frames.size()) + "-frame segment as a duplicate");
          continue;
        }
        const std::string& txn = push->frames[index].transaction_id;
        const std::string what = where + ": frame " + std::to_string(index) + " (txn " + txn +
                                 ") answered duplicate of offset " + std::to_string(offset);
        const StoredMessage* original = partition ? partition->at(offset) : nullptr;
        if (window == 0) {
          sink.add(step, label, what + " while the window is 0");
        } else if (original == nullptr) {
          sink.add(step, label, what + ", but no earlier push stored that offset");
        } else if (original->transaction_id != txn) {
          sink.add(step, label, what + ", which holds txn " + original->transaction_id);
        } else if (!original->sidecar_present) {
          sink.add(step, label, what + ", whose sidecar row was purged by event " +
                                    std::to_string(original->sidecar_purged_by));
        } else if (original->created_at_ms < push->now_ms - window * 1000) {
          sink.add(step, label, what + ", created at " + std::to_string(original->created_at_ms) +
                                    " ms, outside the " + std::to_string(window) + " s window");
        }
      }
    }
    replay.apply(history.events[e], e);
  }
  return sink.take();
}

}  // namespace qdt::properties
