// partition-scope (SPEC 5, 2.3): keys never interact across partitions or
// queues.
//
// Storage level: a duplicate's offset must hold the frame's key in the
// frame's own partition; when it does not and the key is stored in another
// partition, the probe looked across partitions. Response level: every id a
// producer receives (queued or duplicate, zero aside) is the id of a message
// stored under the item's own queue, partition and key, and one id never
// shows up under two partitions.
#include <algorithm>
#include <map>
#include <memory>
#include <memory_resource>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/key_view.h"
#include "properties/step_index.h"
#include "properties/storage_replay.h"

namespace qdt::properties {

namespace {

class PartitionScope final : public PassChecker {
 public:
  explicit PartitionScope(const HistoryIndex& index) : PassChecker("partition-scope", {.replay = true}), index_(index) {
    stored_in_.reserve(index.history().events.size());
  }

  void before(size_t e, const history::Event& event, const PassState& state) override {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (!push || push->failed) return;
    const PartitionReplay* partition = state.push_partition;
    for (const auto& [index, offset] : push->duplicates) {
      if (index >= push->frames.size()) continue;
      const std::string& txn = push->frames[index].transaction_id;
      const StoredMessage* original = partition ? partition->at(offset) : nullptr;
      if (original != nullptr && original->transaction_id() == txn) continue;
      auto elsewhere = stored_in_.find(txn);
      if (elsewhere == stored_in_.end()) continue;  // no original anywhere: no-false-duplicate's finding
      const std::string label = partition_label(push->queue, push->partition);
      std::set<std::string> labels;
      for (uint32_t id : elsewhere->second) labels.insert(labels_[id]);
      std::string others;
      for (const std::string& p : labels) {
        if (p != label) others += (others.empty() ? "" : ", ") + p;
      }
      if (others.empty()) continue;
      sink_.add(index_.steps().step_of(*push, index), label,
                "event " + std::to_string(e) + ": frame " + std::to_string(index) + " (txn " + txn +
                    ") answered duplicate of offset " + std::to_string(offset) +
                    ", which does not hold the key in this partition; the key is stored in " + others);
    }
    if (push->queued && !push->frames.empty()) {
      const uint32_t id = label_id(push->queue, push->partition);
      for (const history::FrameRecord& f : push->frames) {
        std::pmr::vector<uint32_t>& in = stored_in_[f.transaction_id];
        if (std::find(in.begin(), in.end(), id) == in.end()) in.push_back(id);
      }
    }
  }

  void finish(const PassState& state) override {
    const StorageReplay& replay = state.replay;
    // Which partition each answered but unstored id was first seen under.
    std::map<std::string, std::pair<std::string, std::string>> answered_in;  // id -> (partition, step)
    for (const history::RequestRecord& r : index_.history().requests) {
      if (r.rejected) continue;
      for (size_t i = 0; i < r.items.size() && i < r.responses.size(); ++i) {
        const history::ItemRecord& item = r.items[i];
        const history::ResponseItem& got = r.responses[i];
        if (got.status == "error" || got.message_id == history::kZeroUuid) continue;
        auto what = [&] {
          return "item " + std::to_string(i) + " (txn " + item.transaction_id + ") answered " + got.status +
                 " with id " + got.message_id;
        };
        if (const StorageReplay::Location* at = replay.locate(got.message_id)) {
          const StoredMessage* m = at->message;
          if (at->queue != item.queue || at->partition != item.partition) {
            sink_.add(r.step, partition_label(item.queue, item.partition),
                      what() + ", the id of offset " + std::to_string(at->offset) + " of partition " +
                          partition_label(at->queue, at->partition) + " (txn " + m->transaction_id() + ")");
          } else if (m->transaction_id() != item.transaction_id) {
            sink_.add(r.step, partition_label(item.queue, item.partition),
                      what() + ", the id of offset " + std::to_string(at->offset) + " which holds txn " +
                          m->transaction_id());
          }
          continue;
        }
        const std::string label = partition_label(item.queue, item.partition);
        if (got.status == "duplicate") {
          sink_.add(r.step, label, what() + ", which is the id of no stored message");
          continue;
        }
        // A queued id that storage never recorded (model-agreement's finding)
        // still may not be answered under two partitions.
        auto [seen, first] = answered_in.try_emplace(got.message_id, label, r.step);
        if (!first && seen->second.first != label) {
          sink_.add(r.step, label,
                    what() + ", an id step " + seen->second.second + " received for partition " + seen->second.first);
        }
      }
    }
  }

 private:
  uint32_t label_id(const std::string& queue, const std::string& partition) {
    auto [it, fresh] = label_ids_.try_emplace(PartitionView{queue, partition}, static_cast<uint32_t>(labels_.size()));
    if (fresh) labels_.push_back(partition_label(queue, partition));
    return it->second;
  }

  const HistoryIndex& index_;
  // txn -> the partitions that stored it (ids into labels_); the key points into the history.
  std::pmr::unordered_map<std::string_view, std::pmr::vector<uint32_t>> stored_in_{&arena_};
  // Views into the history, hashed: a std::map copied both names per push.
  std::pmr::unordered_map<PartitionView, uint32_t, PartitionViewHash> label_ids_{&arena_};
  std::vector<std::string> labels_;  // "queue/partition"
};

}  // namespace

std::unique_ptr<PassChecker> make_partition_scope(const HistoryIndex& index) {
  return std::make_unique<PartitionScope>(index);
}

std::vector<Failure> check_partition_scope(const history::History& history) {
  return check_alone(make_partition_scope, history);
}

}  // namespace qdt::properties
