// retry-convergence (SPEC 5, 2.12): all responses a retrying producer received
// for one item name the same id (or zero), and one push stores at most one
// message per key within the window.
//
// A push is every RequestRecord sharing push_id (0: not recorded, the request
// is its own push): its attempts and the network's duplicated deliveries.
//
// Response level: per push and item index, the queued or duplicate responses
// the producer actually received (delivered, response_received, not rejected)
// name at most one non-zero id. Errors say nothing about ids and are ignored.
// Two different ids are accepted only when storage was allowed to write the
// later one as a new message (SPEC 2.7): at its commit the window was 0, or
// the earlier message was outside the window or its sidecar row was purged.
// Otherwise a dedup-off queue, or a retry after the window, would fail a
// correct implementation.
//
// Storage level: frames of one push's requests (FrameRecord::origin_request)
// that storage queued under one key are compared, newest first, with the
// earlier copies of that push still holding a sidecar row, exactly as
// no-double-write compares every stored message.
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <variant>

#include "properties/checks.h"
#include "properties/failure_sink.h"
#include "properties/step_index.h"
#include "properties/storage_replay.h"

namespace qdt::properties {
namespace {

using Key = std::tuple<std::string, std::string, std::string>;  // queue, partition, txn

// The push a request belongs to: its push_id, or its own id when none was recorded.
std::pair<bool, uint64_t> push_of(const history::RequestRecord& r) {
  return r.push_id != 0 ? std::make_pair(true, r.push_id) : std::make_pair(false, r.request);
}

struct Commit {
  int64_t window_seconds = 0;  // in force for the commit
  int64_t now_ms = 0;
};

// Whether storage was allowed to write `later` while `earlier` held the same
// key in the same partition (SPEC 2.7, 2.8).
bool fresh_allowed(const StoredMessage& earlier, const StoredMessage& later, const Commit& commit) {
  if (commit.window_seconds == 0) return true;
  if (!earlier.sidecar_present && earlier.sidecar_purged_by < later.event_index) return true;
  return earlier.created_at_ms < commit.now_ms - commit.window_seconds * 1000;
}

}  // namespace

std::vector<Failure> check_retry_convergence(const history::History& history) {
  FailureSink sink("retry-convergence");
  const StepIndex steps(history);
  StorageReplay replay;
  std::map<size_t, Commit> commits;  // queued event -> what its probe saw
  // (push, key) -> offsets that push's frames stored under the key, still unpurged as far as known.
  std::map<std::pair<std::pair<bool, uint64_t>, Key>, std::set<int64_t>> stored_by_push;
  for (size_t e = 0; e < history.events.size(); ++e) {
    const auto* push = std::get_if<history::PushEvent>(&history.events[e]);
    if (push && !push->failed && push->queued) {
      const int64_t window = replay.window_seconds(push->queue);
      commits[e] = Commit{window, push->now_ms};
      const PartitionReplay* partition = replay.find(push->queue, push->partition);
      const int64_t oldest_ms = push->now_ms - window * 1000;
      const std::string label = partition_label(push->queue, push->partition);
      for (size_t j = 0; j < push->frames.size(); ++j) {
        const history::FrameRecord& f = push->frames[j];
        const history::RequestRecord* origin = steps.find(f.origin_request);
        if (origin == nullptr) continue;
        const int64_t offset = push->base_offset + static_cast<int64_t>(j);
        std::set<int64_t>& earlier = stored_by_push[{push_of(*origin), Key{push->queue, push->partition, f.transaction_id}}];
        const std::string what = "txn " + f.transaction_id + " stored at offset " + std::to_string(offset) +
                                 " by event " + std::to_string(e) + " (request " + std::to_string(f.origin_request) +
                                 ", push " + std::to_string(origin->push_id) + ", attempt " +
                                 std::to_string(origin->attempt) + ", now " + std::to_string(push->now_ms) +
                                 " ms, window " + std::to_string(window) + " s)";
        for (auto it = earlier.rbegin(); window > 0 && it != earlier.rend();) {
          if (*it >= push->base_offset) {  // the same segment: committed together, inside the window
            sink.add(steps.step_of(*push, j), label,
                     what + " together with offset " + std::to_string(*it) + " of the same push in one segment");
            break;
          }
          const StoredMessage* m = partition ? partition->at(*it) : nullptr;
          if (m == nullptr || !m->sidecar_present) {  // purged (or never stored): no longer counts
            it = std::make_reverse_iterator(earlier.erase(std::next(it).base()));
            continue;
          }
          if (m->created_at_ms < oldest_ms) break;
          sink.add(steps.step_of(*push, j), label,
                   what + " while offset " + std::to_string(m->offset) + " (id " + m->message_id + ", created at " +
                       std::to_string(m->created_at_ms) + " ms by event " + std::to_string(m->event_index) +
                       ", request " + std::to_string(m->origin_request) +
                       ") of the same push was still in the window with its sidecar row present");
          break;
        }
        earlier.insert(offset);
      }
    }
    replay.apply(history.events[e], e);
  }

  // (push, item index, key) -> (id -> the first record that received it).
  std::map<std::tuple<std::pair<bool, uint64_t>, size_t, Key>, std::map<std::string, const history::RequestRecord*>>
      received;
  for (const history::RequestRecord& r : history.requests) {
    if (!r.delivered || !r.response_received || r.rejected) continue;
    for (size_t i = 0; i < r.responses.size() && i < r.items.size(); ++i) {
      const history::ResponseItem& got = r.responses[i];
      if (got.status != "queued" && got.status != "duplicate") continue;
      if (got.message_id == history::kZeroUuid) continue;
      const history::ItemRecord& item = r.items[i];
      received[{push_of(r), i, Key{item.queue, item.partition, item.transaction_id}}].try_emplace(got.message_id, &r);
    }
  }
  for (const auto& [where, ids] : received) {
    if (ids.size() < 2) continue;
    const size_t i = std::get<1>(where);
    // Order the ids by where they are stored; an id stored nowhere under the
    // item's key conflicts with every other.
    const history::RequestRecord& any = *ids.begin()->second;
    const history::ItemRecord& item = any.items[i];
    const PartitionReplay* partition = replay.find(item.queue, item.partition);
    std::map<int64_t, const StoredMessage*> stored;
    std::vector<std::string> unstored;
    for (const auto& [id, r] : ids) {
      const StorageReplay::Location* at = replay.locate(id);
      const StoredMessage* m = at && partition && at->queue == item.queue && at->partition == item.partition
                                   ? partition->at(at->offset)
                                   : nullptr;
      if (m != nullptr && m->transaction_id == item.transaction_id) {
        stored.emplace(m->offset, m);
      } else {
        unstored.push_back(id);
      }
    }
    std::string conflict;
    if (!unstored.empty()) {
      conflict = "id " + unstored.front() + " is not a message stored under the item's key";
    } else {
      for (auto later = std::next(stored.begin()); conflict.empty() && later != stored.end(); ++later) {
        const Commit& commit = commits.at(later->second->event_index);
        for (auto earlier = stored.begin(); earlier != later; ++earlier) {
          if (fresh_allowed(*earlier->second, *later->second, commit)) continue;
          conflict = "offset " + std::to_string(later->first) + " (id " + later->second->message_id +
                     ") was stored at " + std::to_string(commit.now_ms) + " ms while offset " +
                     std::to_string(earlier->first) + " (id " + earlier->second->message_id + ", created at " +
                     std::to_string(earlier->second->created_at_ms) + " ms) was in the " +
                     std::to_string(commit.window_seconds) + " s window with its sidecar row present";
          break;
        }
      }
    }
    if (conflict.empty()) continue;
    std::string answers;
    for (const auto& [id, r] : ids) {
      answers += (answers.empty() ? "" : ", ") + id + " (request " + std::to_string(r->request) + ", attempt " +
                 std::to_string(r->attempt) + ")";
    }
    sink.add(any.step, partition_label(item.queue, item.partition),
             "push " + std::to_string(any.push_id) + " item " + std::to_string(i) + " (txn " + item.transaction_id +
                 ") received different ids {" + answers + "}: " + conflict);
  }
  return sink.take();
}

}  // namespace qdt::properties
