// no-double-write (docs/semantics.md §5): two stored messages of one partition with one key
// are never both inside one window, unless the first's sidecar row was purged,
// or the window was 0, when the second committed.
//
// Before each queued push is applied, every frame is compared with the live
// (unpurged) earlier occurrences of its key, newest first: created_at does not
// decrease along offsets (the offsets property), so the newest live occurrence
// decides and the scan stops at the first one outside the window.
#include <memory>
#include <set>
#include <span>
#include <string>
#include <variant>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/segment_keys.h"
#include "properties/step_index.h"
#include "properties/storage_replay.h"

namespace qdt::properties {

namespace {

class NoDoubleWrite final : public PassChecker {
 public:
  explicit NoDoubleWrite(const HistoryIndex& index)
      : PassChecker("no-double-write", {.replay = true}),
        h_(index.history()),
        steps_(index.steps()),
        keys_(index.keys()) {}

  void before(size_t e, const history::Event& event, const PassState& state) override {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (!push || push->failed || !push->queued) return;
    const int64_t window = state.push_window_seconds;
    if (window <= 0) return;
    const PartitionReplay* partition = state.push_partition;
    const int64_t oldest_ms = push->now_ms - window * 1000;
    auto prefix = [&](size_t j) {
      return "txn " + push->frames[j].transaction_id + " was stored at offset " +
             std::to_string(push->base_offset + static_cast<int64_t>(j)) + " by " +
             event_label(h_, steps_, e, steps_.step_of(*push, j)) + " with a " + std::to_string(window) + " s window";
    };
    const std::span<const uint32_t> keys = keys_.frames(e);
    first_frame_of_key(keys, first_of_key_);
    const std::vector<size_t>& first_of_key = first_of_key_;
    for (size_t j = 0; j < push->frames.size(); ++j) {
      if (const size_t first = first_of_key[j]; first != j) {
        const int64_t first_offset = push->base_offset + static_cast<int64_t>(first);
        sink_.add(Rule::no_double_write_key_twice_in_segment,
                  {.step = steps_.step_of(*push, j),
                   .partition = partition_label(push->queue, push->partition),
                   .event = e,
                   .expected = "duplicate of offset " + std::to_string(first_offset),
                   .actual = "stored at offset " + std::to_string(push->base_offset + static_cast<int64_t>(j)),
                   .detail = prefix(j) + " together with offset " + std::to_string(first_offset) +
                             " of the same key in the same segment: one key is stored once per window"});
        continue;
      }
      if (partition == nullptr) continue;
      const std::span<const int64_t> live = state.replay.live_offsets(keys[j]);
      for (auto it = live.rbegin(); it != live.rend(); ++it) {
        const StoredMessage* earlier = partition->at(*it);
        if (earlier->created_at_ms < oldest_ms) break;
        const std::string& earlier_step = steps_.step_of(earlier->origin_request());
        sink_.add(Rule::no_double_write_stored_inside_window,
                  {.step = steps_.step_of(*push, j),
                   .partition = partition_label(push->queue, push->partition),
                   .event = e,
                   .expected = "duplicate of offset " + std::to_string(earlier->offset),
                   .actual = "stored at offset " + std::to_string(push->base_offset + static_cast<int64_t>(j)),
                   .detail = prefix(j) + " while offset " + std::to_string(earlier->offset) + " (id " +
                             earlier->message_id() + " of step " + earlier_step + "), stored by " +
                             event_label(h_, steps_, earlier->event_index, earlier_step) +
                             ", was still in the window with its sidecar row (the key's dedup entry) present: "
                             "storage had to answer duplicate"});
        break;
      }
    }
  }

 private:
  const history::History& h_;
  const StepIndex& steps_;
  const KeyIds& keys_;
  std::vector<size_t> first_of_key_;  // the current push's, reused
};

}  // namespace

std::unique_ptr<PassChecker> make_no_double_write(const HistoryIndex& index) {
  return std::make_unique<NoDoubleWrite>(index);
}

std::vector<Failure> check_no_double_write(const history::History& history) {
  return check_alone(make_no_double_write, history);
}

}  // namespace qdt::properties
