// duplicate-id (docs/semantics.md §5, 2.6): a duplicate's id is the original's (the
// smallest in-window offset of the key with its sidecar row present), and the
// zero UUID only when that original's segment is gone.
//
// Three layers: the offset storage names, the id each covering-segment fetch
// returns, and the id each duplicate response carries (it must be one that a
// fetch of that offset returned after the push, or the leader's own id for a
// follower of a queued leader).
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <variant>

#include "model/model.h"
#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/step_index.h"
#include "properties/storage_replay.h"
#include "properties/verdicts.h"

namespace qdt::properties {
namespace {

using FetchKey = std::tuple<uint32_t, std::string, std::string, int64_t>;

// `state`: before `push` (PassState's push_partition and push_window_seconds).
void check_offset(const history::PushEvent& push, size_t e, const PassState& state, const HistoryIndex& history_index,
                  FailureSink& sink) {
  const StepIndex& steps = history_index.steps();
  const std::span<const uint32_t> keys = history_index.keys().frames(e);
  const PartitionReplay* partition = state.push_partition;
  const int64_t window = state.push_window_seconds;
  if (partition == nullptr || window == 0) return;  // no original at all: no-false-duplicate's finding
  const int64_t oldest_ms = push.now_ms - window * 1000;
  for (const auto& [index, offset] : push.duplicates) {
    if (index >= push.frames.size()) continue;
    const std::string& txn = push.frames[index].transaction_id;
    for (int64_t candidate : state.replay.live_offsets(keys[index])) {
      if (candidate >= offset) break;  // nothing smaller is in the window
      if (partition->at(candidate)->created_at_ms < oldest_ms) continue;
      const std::string& step = steps.step_of(push, index);
      sink.add(Rule::duplicate_id_not_smallest_offset,
               {.step = step,
                .partition = partition_label(push.queue, push.partition),
                .event = e,
                .expected = "duplicate of offset " + std::to_string(candidate),
                .actual = "duplicate of offset " + std::to_string(offset),
                .detail = event_label(history_index.history(), steps, e, step) + ": frame " + std::to_string(index) +
                          " (txn " + txn + ") was answered as a repeat of offset " + std::to_string(offset) +
                          ", but offset " + std::to_string(candidate) +
                          " holds the key too, inside the window, and the original is the smallest such offset"});
      break;
    }
  }
}

class DuplicateId final : public PassChecker {
 public:
  explicit DuplicateId(const HistoryIndex& index) : PassChecker("duplicate-id", {.replay = true}), index_(index) {}

  void before(size_t e, const history::Event& event, const PassState& state) override {
    const StepIndex& steps = index_.steps();
    if (const auto* push = std::get_if<history::PushEvent>(&event); push && !push->failed) {
      check_offset(*push, e, state, index_, sink_);
      for (const auto& [index, offset] : push->duplicates) {
        pending_step_[{push->broker, push->queue, push->partition, offset}] = &steps.step_of(*push, index);
      }
    } else if (const auto* fetch = std::get_if<history::FetchEvent>(&event)) {
      const PartitionReplay* partition = state.replay.find(fetch->queue, fetch->partition);
      const StoredMessage* original = partition ? partition->at(fetch->offset) : nullptr;
      // A failed fetch legitimately reads nothing (docs/semantics.md §2.6: "can no longer be read").
      const bool present = original != nullptr && original->segment_present && !fetch->failed;
      const std::string& want = present ? original->message_id() : kZeroId;
      if (fetch->message_id != want || fetch->found != present) {
        auto it = pending_step_.find({fetch->broker, fetch->queue, fetch->partition, fetch->offset});
        std::string state_of = original == nullptr ? "was never stored"
                               : fetch->failed     ? "could not be read (the fetch failed)"
                               : present           ? "is present"
                                                   : "was deleted";
        const std::string step = it == pending_step_.end() ? "" : *it->second;
        sink_.add(Rule::duplicate_id_fetch_wrong_id,
                  {.step = step,
                   .partition = partition_label(fetch->queue, fetch->partition),
                   .event = e,
                   .expected = "id " + want + (present ? " (found)" : " (not found)"),
                   .actual = "id " + fetch->message_id + (fetch->found ? " (found)" : " (not found)"),
                   .detail = "fetch " + event_label(index_.history(), steps, e, step) + " of offset " +
                             std::to_string(fetch->offset) + " returned id " + fetch->message_id +
                             (fetch->found ? " (found)" : " (not found)") + ", but the original's segment " +
                             state_of + ", so the id must be " + want + (present ? "" : " (the zero id)")});
      }
    }
  }

  void finish(const PassState& /*state*/) override {
    const Verdicts& verdicts = index_.verdicts();
    for (const history::RequestRecord& r : index_.history().requests) {
      if (r.rejected || r.responses.size() != r.items.size()) continue;
      if (std::none_of(r.responses.begin(), r.responses.end(),
                       [](const history::ResponseItem& got) { return got.status == "duplicate"; })) {
        continue;  // no duplicate answer to judge
      }
      const std::span<const size_t> leaders = index_.leaders(r);
      for (size_t i = 0; i < r.items.size(); ++i) {
        const history::ResponseItem& got = r.responses[i];
        if (got.status != "duplicate") continue;
        const Expected want = verdicts.expected(r, i, leaders[i]);
        const std::set<std::string> ids = want.ids_for("duplicate");
        if (!want.statuses.contains("duplicate") || ids.contains(got.message_id)) continue;
        sink_.add(Rule::duplicate_id_answered_wrong_id,
                  {.step = r.step,
                   .partition = partition_label(r.items[i].queue, r.items[i].partition),
                   .expected = ids.empty() ? std::string("no duplicate") : "duplicate " + join_or(ids),
                   .actual = "duplicate " + got.message_id,
                   .detail = "item " + std::to_string(i) + " (txn " + r.items[i].transaction_id +
                             ") was answered duplicate with id " + got.message_id + ", but " +
                             (ids.empty() ? std::string("no id of the original could be known")
                                          : "the original's id is " + join_or(ids)) +
                             ": " + want.because});
      }
    }
  }

 private:
  inline static const std::string kZeroId = history::kZeroUuid;
  const HistoryIndex& index_;
  std::map<FetchKey, const std::string*> pending_step_;  // who asked for the fetch, for the failure's step
};

}  // namespace

std::unique_ptr<PassChecker> make_duplicate_id(const HistoryIndex& index) {
  return std::make_unique<DuplicateId>(index);
}

std::vector<Failure> check_duplicate_id(const history::History& history) {
  return check_alone(make_duplicate_id, history);
}

}  // namespace qdt::properties
