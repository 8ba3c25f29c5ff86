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
      : PassChecker("no-false-duplicate", {.replay = true}), h_(index.history()), steps_(index.steps()) {}

  void before(size_t e, const history::Event& event, const PassState& state) override {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (!push || push->failed) return;
    if (push->queued && push->duplicates.empty()) return;  // nothing to judge
    const std::string label = partition_label(push->queue, push->partition);
    if (!push->queued && push->duplicates.empty()) {
      const std::string& step = steps_.step_of(*push, 0);
      sink_.add(Rule::no_false_duplicate_no_original_named,
                {.step = step,
                 .partition = label,
                 .event = e,
                 .detail = event_label(h_, steps_, e, step) + " answered duplicate without naming any original"});
    }
    const int64_t window = state.push_window_seconds;
    const PartitionReplay* partition = state.push_partition;
    for (const auto& [index, offset] : push->duplicates) {
      const std::string& step = steps_.step_of(*push, index);
      const std::string where = event_label(h_, steps_, e, step);
      if (index >= push->frames.size()) {
        sink_.add(Rule::no_false_duplicate_frame_out_of_range,
                  {.step = step,
                   .partition = label,
                   .event = e,
                   .expected = "a frame below " + std::to_string(push->frames.size()),
                   .actual = "frame " + std::to_string(index),
                   .detail = where + " answered frame " + std::to_string(index) +
                             " as a duplicate, but the segment has only " + std::to_string(push->frames.size()) +
                             " frames"});
        continue;
      }
      const std::string& txn = push->frames[index].transaction_id;
      const std::string what = where + ": frame " + std::to_string(index) + " (txn " + txn +
                               ") was answered as a repeat of offset " + std::to_string(offset);
      const StoredMessage* original = partition ? partition->at(offset) : nullptr;
      // Each way the named offset is no original; the answer storage gave is the same.
      auto add = [&](Rule rule, std::string why) {
        sink_.add(rule, {.step = step,
                         .partition = label,
                         .event = e,
                         .expected = "queued",
                         .actual = "duplicate of offset " + std::to_string(offset),
                         .detail = what + why});
      };
      if (window == 0) {
        add(Rule::no_false_duplicate_dedup_off, ", but the window is 0 s (deduplication off): nothing is a duplicate");
      } else if (original == nullptr) {
        add(Rule::no_false_duplicate_original_missing, ", but no earlier push stored that offset: no original exists");
      } else if (original->transaction_id() != txn) {
        add(Rule::no_false_duplicate_original_other_key,
            ", but that offset holds another key, txn " + original->transaction_id());
      } else if (!original->sidecar_present) {
        add(Rule::no_false_duplicate_original_purged,
            ", but that offset's sidecar row (the key's dedup entry) was purged by " +
                event_label(h_, steps_, original->sidecar_purged_by, step) + ", so it is no original any more");
      } else if (original->created_at_ms < push->now_ms - window * 1000) {
        add(Rule::no_false_duplicate_original_expired,
            ", but that offset was created at " + std::to_string(original->created_at_ms) + " ms, outside the " +
                std::to_string(window) + " s window, so it is no original any more");
      }
    }
  }

 private:
  const history::History& h_;
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
