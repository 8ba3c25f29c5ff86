// window-expiry (SPEC 5, 2.7): a repeat probed after the window is queued
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
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <variant>

#include "properties/checks.h"
#include "properties/failure_sink.h"
#include "properties/step_index.h"
#include "properties/storage_replay.h"

namespace qdt::properties {
namespace {

using Key = std::tuple<std::string, std::string, std::string>;  // queue, partition, txn

}  // namespace

std::vector<Failure> check_window_expiry(const history::History& history) {
  FailureSink sink("window-expiry");
  const StepIndex steps(history);
  // (request, queue, partition, txn) -> the item that leads the key in that request.
  std::map<std::tuple<uint64_t, std::string, std::string, std::string>, size_t> leader_item;
  for (const history::RequestRecord& r : history.requests) {
    if (!r.delivered || r.rejected) continue;
    for (size_t i = 0; i < r.items.size(); ++i) {
      leader_item.try_emplace({r.request, r.items[i].queue, r.items[i].partition, r.items[i].transaction_id}, i);
    }
  }
  StorageReplay replay;
  std::map<Key, std::set<std::string>> stored_ids;  // every id ever queued under a key
  for (size_t e = 0; e < history.events.size(); ++e) {
    const auto* push = std::get_if<history::PushEvent>(&history.events[e]);
    if (push && !push->failed) {
      const int64_t window = replay.window_seconds(push->queue);
      const PartitionReplay* partition = replay.find(push->queue, push->partition);
      const std::string label = partition_label(push->queue, push->partition);
      std::map<size_t, int64_t> duplicate_of;
      for (const auto& [index, offset] : push->duplicates) duplicate_of.emplace(index, offset);
      for (size_t j = 0; partition != nullptr && j < push->frames.size(); ++j) {
        const history::FrameRecord& f = push->frames[j];
        auto ids = stored_ids.find({push->queue, push->partition, f.transaction_id});
        if (ids == stored_ids.end()) continue;  // a first occurrence: not a repeat
        const std::set<int64_t>& live = partition->live_offsets(f.transaction_id);
        const StoredMessage* newest = live.empty() ? nullptr : partition->at(*live.rbegin());
        if (window > 0 && newest != nullptr && newest->created_at_ms >= push->now_ms - window * 1000) continue;
        const std::string why =
            newest == nullptr ? std::string(" has no earlier occurrence with its sidecar row present")
            : window == 0     ? std::string(" is probed with the window off")
                              : "'s newest live occurrence (offset " + std::to_string(newest->offset) +
                                    ", created at " + std::to_string(newest->created_at_ms) + " ms) is outside the " +
                                    std::to_string(window) + " s window";
        const std::string what = "event " + std::to_string(e) + " (now " + std::to_string(push->now_ms) +
                                 " ms): frame " + std::to_string(j) + " (txn " + f.transaction_id + ", id " +
                                 f.message_id + ")";
        if (auto d = duplicate_of.find(j); d != duplicate_of.end()) {
          sink.add(steps.step_of(*push, j), label,
                   what + " is listed as a duplicate of offset " + std::to_string(d->second) + ", but its key" + why);
          continue;
        }
        if (!push->queued) continue;  // survived this duplicate round; a later push decides it
        const history::RequestRecord* origin = steps.find(f.origin_request);
        if (origin == nullptr) continue;
        auto leader = leader_item.find({origin->request, push->queue, push->partition, f.transaction_id});
        if (leader == leader_item.end() || leader->second >= origin->responses.size()) continue;
        const history::ResponseItem& got = origin->responses[leader->second];
        const bool stale = ids->second.contains(got.message_id);
        if (got.status == "queued" && !stale && got.message_id != history::kZeroUuid) continue;
        sink.add(origin->step, label,
                 what + " was queued as a new message because its key" + why + ", but item " +
                     std::to_string(leader->second) + " of request " + std::to_string(origin->request) +
                     " answered " + got.status + " " + got.message_id +
                     (stale ? ", an id already stored under the key" : "") + "; expected queued with a fresh id");
      }
      if (push->queued) {
        for (const history::FrameRecord& f : push->frames) {
          stored_ids[{push->queue, push->partition, f.transaction_id}].insert(f.message_id);
        }
      }
    }
    replay.apply(history.events[e], e);
  }
  return sink.take();
}

}  // namespace qdt::properties
