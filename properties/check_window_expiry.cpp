// window-expiry (docs/semantics.md §5, 2.7): a repeat probed after the window is queued
// with a fresh id.
//
// For every frame of a committed push whose key already has queued messages
// in the partition: when none of them is in the window (created_at >= now -
// window, window > 0) with its sidecar row still present, storage must not
// list the frame as a duplicate, and when storage queued it, the item that
// carries the frame (the leader of its key in the origin request) must answer
// queued with an id that is none of the key's earlier stored ids and not the
// zero UUID: a brand-new message, no marker.
//
// created_at never decreases along offsets (the offsets property), so the
// newest live occurrence decides whether any is in the window.
#include <algorithm>
#include <memory>
#include <memory_resource>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/key_ids.h"
#include "properties/step_index.h"
#include "properties/storage_replay.h"

namespace qdt::properties {
namespace {

// The item of `r` that leads the key (the first with it); nullopt when none does.
std::optional<size_t> leader_item(const history::RequestRecord& r, const std::string& queue,
                                  const std::string& partition, const std::string& txn) {
  for (size_t i = 0; i < r.items.size(); ++i) {
    const history::ItemRecord& item = r.items[i];
    if (item.transaction_id == txn && item.partition == partition && item.queue == queue) return i;
  }
  return std::nullopt;
}

class WindowExpiry final : public PassChecker {
 public:
  explicit WindowExpiry(const HistoryIndex& index)
      : PassChecker("window-expiry", {.replay = true}),
        h_(index.history()),
        steps_(index.steps()),
        keys_(index.keys()) {
    stored_ids_.resize(keys_.size());
  }

  void before(size_t e, const history::Event& event, const PassState& state) override {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (!push || push->failed) return;
    const int64_t window = state.push_window_seconds;
    const PartitionReplay* partition = state.push_partition;
    const std::span<const uint32_t> keys = keys_.frames(e);
    for (size_t j = 0; partition != nullptr && j < push->frames.size(); ++j) {
      const std::pmr::vector<std::string_view>& ids = stored_ids_[keys[j]];
      if (ids.empty()) continue;  // a first occurrence: not a repeat
      const std::span<const int64_t> live = state.replay.live_offsets(keys[j]);
      const StoredMessage* newest = live.empty() ? nullptr : partition->at(*live.rbegin());
      if (window > 0 && newest != nullptr && newest->created_at_ms >= push->now_ms - window * 1000) continue;
      judge_repeat(*push, e, j, window, newest, ids);
    }
    if (push->queued) {
      for (size_t j = 0; j < push->frames.size(); ++j) stored_ids_[keys[j]].push_back(push->frames[j].message_id);
    }
  }

 private:
  // Frame `j` of `push` repeats a key none of whose stored messages is in the window.
  void judge_repeat(const history::PushEvent& push, size_t e, size_t j, int64_t window, const StoredMessage* newest,
                    const std::pmr::vector<std::string_view>& ids) {
    const history::FrameRecord& f = push.frames[j];
    const std::string label = partition_label(push.queue, push.partition);
    const std::string why =
        newest == nullptr ? std::string(" has no earlier message whose sidecar row (the key's dedup entry) is present")
        : window == 0     ? std::string(" is probed with the window at 0 s (deduplication off)")
                          : "'s newest message with a sidecar row (offset " + std::to_string(newest->offset) +
                                ", created at " + std::to_string(newest->created_at_ms) + " ms) is outside the " +
                                std::to_string(window) + " s window";
    const std::string what = event_label(h_, steps_, e, steps_.step_of(push, j)) + ": frame " + std::to_string(j) +
                             " (txn " + f.transaction_id + ", id " + f.message_id + ")";
    for (const auto& [index, offset] : push.duplicates) {
      if (index != j) continue;
      sink_.add(steps_.step_of(push, j), label,
                what + " was answered as a repeat of offset " + std::to_string(offset) + ", but its key" + why +
                    ": a repeat after the window is a new message");
      return;
    }
    if (!push.queued) return;  // survived this duplicate round; a later push decides it
    const history::RequestRecord* origin = steps_.find(f.origin_request);
    if (origin == nullptr || !origin->delivered || origin->rejected) return;
    const std::optional<size_t> leader = leader_item(*origin, push.queue, push.partition, f.transaction_id);
    if (!leader || *leader >= origin->responses.size()) return;
    const history::ResponseItem& got = origin->responses[*leader];
    const bool stale = std::find(ids.begin(), ids.end(), got.message_id) != ids.end();
    if (got.status == "queued" && !stale && got.message_id != history::kZeroUuid) return;
    sink_.add(origin->step, label,
              what + " was queued as a new message because its key" + why + ", but item " + std::to_string(*leader) +
                  " of request " + std::to_string(origin->request) + " answered " + got.status + " " + got.message_id +
                  (stale ? ", an id already stored under the key" : "") + "; expected queued with a fresh id");
  }

  const history::History& h_;
  const StepIndex& steps_;
  const KeyIds& keys_;
  // By key id, every id ever queued under the key (views into the history);
  // empty until the key is first stored.
  std::pmr::vector<std::pmr::vector<std::string_view>> stored_ids_{&arena_};
};

}  // namespace

std::unique_ptr<PassChecker> make_window_expiry(const HistoryIndex& index) {
  return std::make_unique<WindowExpiry>(index);
}

std::vector<Failure> check_window_expiry(const history::History& history) {
  return check_alone(make_window_expiry, history);
}

}  // namespace qdt::properties
