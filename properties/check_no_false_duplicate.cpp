// no-false-duplicate (docs/semantics.md §5): every duplicate has an original: same key,
// same partition, committed before the probe, its sidecar row present and
// created_at >= now - window.
#include <memory>
#include <string>
#include <variant>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/step_index.h"
#include "properties/storage_replay.h"

namespace qdt::properties {

namespace {

class NoFalseDuplicate final : public PassChecker {
 public:
  explicit NoFalseDuplicate(const HistoryIndex& index)
      : PassChecker("no-false-duplicate", {.replay = true}), steps_(index.steps()) {}

  void before(size_t e, const history::Event& event, const PassState& state) override {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (!push || push->failed) return;
    if (push->queued && push->duplicates.empty()) return;  // nothing to judge
    const std::string label = partition_label(push->queue, push->partition);
    const std::string where = "event " + std::to_string(e) + " (now " + std::to_string(push->now_ms) + " ms)";
    if (!push->queued && push->duplicates.empty()) {
      sink_.add(steps_.step_of(*push, 0), label, where + " answered duplicate without naming any original");
    }
    const int64_t window = state.push_window_seconds;
    const PartitionReplay* partition = state.push_partition;
    for (const auto& [index, offset] : push->duplicates) {
      const std::string& step = steps_.step_of(*push, index);
      if (index >= push->frames.size()) {
        sink_.add(step, label,
                  where + " lists frame " + std::to_string(index) + " of a " + std::to_string(push->frames.size()) +
                      "-frame segment as a duplicate");
        continue;
      }
      const std::string& txn = push->frames[index].transaction_id;
      const std::string what = where + ": frame " + std::to_string(index) + " (txn " + txn +
                               ") answered duplicate of offset " + std::to_string(offset);
      const StoredMessage* original = partition ? partition->at(offset) : nullptr;
      if (window == 0) {
        sink_.add(step, label, what + " while the window is 0");
      } else if (original == nullptr) {
        sink_.add(step, label, what + ", but no earlier push stored that offset");
      } else if (original->transaction_id() != txn) {
        sink_.add(step, label, what + ", which holds txn " + original->transaction_id());
      } else if (!original->sidecar_present) {
        sink_.add(step, label,
                  what + ", whose sidecar row was purged by event " + std::to_string(original->sidecar_purged_by));
      } else if (original->created_at_ms < push->now_ms - window * 1000) {
        sink_.add(step, label,
                  what + ", created at " + std::to_string(original->created_at_ms) + " ms, outside the " +
                      std::to_string(window) + " s window");
      }
    }
  }

 private:
  const StepIndex& steps_;
};

}  // namespace

std::unique_ptr<PassChecker> make_no_false_duplicate(const HistoryIndex& index) {
  return std::make_unique<NoFalseDuplicate>(index);
}

std::vector<Failure> check_no_false_duplicate(const history::History& history) {
  return check_alone(make_no_false_duplicate, history);
}

}  // namespace qdt::properties
