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
//
// Under synchronous off a power loss empties storage (properties/power_loss.h):
// an id stored before it is stored no longer, so only ids stored since count
// as stale; and a frame whose commit was lost and that the broker pushed again
// after the loss (its answer had not reached it) answers what that later push
// decided, which the checks of that push judge.
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
#include "properties/power_loss.h"
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
  struct StoredId {
    std::string_view message_id;  // a view into the history
    size_t event = 0;             // the push that queued it
  };

 public:
  explicit WindowExpiry(const HistoryIndex& index)
      : PassChecker("window-expiry", {.replay = true}),
        h_(index.history()),
        steps_(index.steps()),
        keys_(index.keys()),
        emptied_(storage_emptied_at(h_)) {
    stored_ids_.resize(keys_.size());
  }

  void storage_emptied(size_t e, const PassState& /*before*/) override { stretch_start_ = e; }

  void before(size_t e, const history::Event& event, const PassState& state) override {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (!push || push->failed) return;
    const int64_t window = state.push_window_seconds;
    const PartitionReplay* partition = state.push_partition;
    const std::span<const uint32_t> keys = keys_.frames(e);
    for (size_t j = 0; partition != nullptr && j < push->frames.size(); ++j) {
      const std::pmr::vector<StoredId>& ids = stored_ids_[keys[j]];
      if (ids.empty()) continue;  // a first occurrence: not a repeat
      const std::span<const int64_t> live = state.replay.live_offsets(keys[j]);
      const StoredMessage* newest = live.empty() ? nullptr : partition->at(*live.rbegin());
      if (window > 0 && newest != nullptr && newest->created_at_ms >= push->now_ms - window * 1000) continue;
      judge_repeat(*push, e, j, window, newest, ids);
    }
    if (push->queued) {
      for (size_t j = 0; j < push->frames.size(); ++j) stored_ids_[keys[j]].push_back({push->frames[j].message_id, e});
    }
  }

 private:
  // Frame `j` of `push` repeats a key none of whose stored messages is in the window.
  void judge_repeat(const history::PushEvent& push, size_t e, size_t j, int64_t window, const StoredMessage* newest,
                    const std::pmr::vector<StoredId>& ids) {
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
      sink_.add(Rule::window_expiry_expired_answered_duplicate,
                {.step = steps_.step_of(push, j),
                 .partition = label,
                 .event = e,
                 .expected = "queued",
                 .actual = "duplicate of offset " + std::to_string(offset),
                 .detail = what + " was answered as a repeat of offset " + std::to_string(offset) + ", but its key" +
                           why + ": a repeat after the window is a new message"});
      return;
    }
    if (!push.queued) return;  // survived this duplicate round; a later push decides it
    const history::RequestRecord* origin = steps_.find(f.origin_request);
    if (origin == nullptr || !origin->delivered || origin->rejected) return;
    const std::optional<size_t> leader = leader_item(*origin, push.queue, push.partition, f.transaction_id);
    if (!leader || *leader >= origin->responses.size()) return;
    const history::ResponseItem& got = origin->responses[*leader];
    const bool stale = std::any_of(ids.begin(), ids.end(), [&](const StoredId& stored) {
      return stored.event >= stretch_start_ && stored.message_id == got.message_id;
    });
    if (got.status == "queued" && !stale && got.message_id != history::kZeroUuid) return;
    if (repushed_after_loss(push, e, j)) return;  // a scan of the later events: only for an answer to fault
    sink_.add(Rule::window_expiry_stale_id,
              {.step = origin->step,
               .partition = label,
               .event = e,
               .expected = "queued " + f.message_id,
               .actual = got.status + " " + got.message_id,
               .detail = what + " was queued as a new message because its key" + why + ", but item " +
                         std::to_string(*leader) + " of request " + std::to_string(origin->request) + " answered " +
                         got.status + " " + got.message_id + (stale ? ", an id already stored under the key" : "") +
                         "; expected queued with a fresh id"});
  }

  // Whether storage was emptied after push `e` committed frame `j` and the
  // frame was pushed again since: its commit is gone and its answer is that later push's.
  bool repushed_after_loss(const history::PushEvent& push, size_t e, size_t j) const {
    const auto lost = std::upper_bound(emptied_.begin(), emptied_.end(), e);
    if (lost == emptied_.end()) return false;
    const history::FrameRecord& f = push.frames[j];
    for (size_t later = *lost; later < h_.events.size(); ++later) {
      const auto* again = std::get_if<history::PushEvent>(&h_.events[later]);
      if (again == nullptr || again->queue != push.queue || again->partition != push.partition) continue;
      for (const history::FrameRecord& g : again->frames) {
        if (g.origin_request == f.origin_request && g.message_id == f.message_id) return true;
      }
    }
    return false;
  }

  const history::History& h_;
  const StepIndex& steps_;
  const KeyIds& keys_;
  const std::vector<size_t> emptied_;  // storage_emptied_at
  size_t stretch_start_ = 0;           // the first event since storage was last emptied
  // By key id, every id ever queued under the key; empty until the key is first stored.
  std::pmr::vector<std::pmr::vector<StoredId>> stored_ids_{&arena_};
};

}  // namespace

std::unique_ptr<PassChecker> make_window_expiry(const HistoryIndex& index) {
  return std::make_unique<WindowExpiry>(index);
}

std::vector<Failure> check_window_expiry(const history::History& history) {
  return check_alone(make_window_expiry, history);
}

}  // namespace qdt::properties
