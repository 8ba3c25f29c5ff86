// partition-scope (SPEC 5, 2.3): keys never interact across partitions or
// queues.
//
// Storage level: a duplicate's offset must hold the frame's key in the
// frame's own partition; when it does not and the key is stored in another
// partition, the probe looked across partitions. Response level: every id a
// producer receives (queued or duplicate, zero aside) is the id of a message
// stored under the item's own queue, partition and key, and one id never
// shows up under two partitions.
#include <map>
#include <set>
#include <string>
#include <variant>

#include "properties/checks.h"
#include "properties/failure_sink.h"
#include "properties/step_index.h"
#include "properties/storage_replay.h"

namespace qdt::properties {

std::vector<Failure> check_partition_scope(const history::History& history) {
  FailureSink sink("partition-scope");
  const StepIndex steps(history);
  StorageReplay replay;
  std::map<std::string, std::set<std::string>> stored_in;  // txn -> partitions holding it
  for (size_t e = 0; e < history.events.size(); ++e) {
    const auto* push = std::get_if<history::PushEvent>(&history.events[e]);
    if (push && !push->failed) {
      const std::string label = partition_label(push->queue, push->partition);
      const PartitionReplay* partition = replay.find(push->queue, push->partition);
      for (const auto& [index, offset] : push->duplicates) {
        if (index >= push->frames.size()) continue;
        const std::string& txn = push->frames[index].transaction_id;
        const StoredMessage* original = partition ? partition->at(offset) : nullptr;
        if (original != nullptr && original->transaction_id == txn) continue;
        auto elsewhere = stored_in.find(txn);
        if (elsewhere == stored_in.end()) continue;  // no original anywhere: no-false-duplicate's finding
        std::string others;
        for (const std::string& p : elsewhere->second) {
          if (p != label) others += (others.empty() ? "" : ", ") + p;
        }
        if (others.empty()) continue;
        sink.add(steps.step_of(*push, index), label,
                 "event " + std::to_string(e) + ": frame " + std::to_string(index) + " (txn " + txn +
                     ") answered duplicate of offset " + std::to_string(offset) +
                     ", which does not hold the key in this partition; the key is stored in " + others);
      }
      if (push->queued) {
        for (const history::FrameRecord& f : push->frames) stored_in[f.transaction_id].insert(label);
      }
    }
    replay.apply(history.events[e], e);
  }

  // Which partition each answered but unstored id was first seen under.
  std::map<std::string, std::pair<std::string, std::string>> answered_in;  // id -> (partition, step)
  for (const history::RequestRecord& r : history.requests) {
    if (r.rejected) continue;
    for (size_t i = 0; i < r.items.size() && i < r.responses.size(); ++i) {
      const history::ItemRecord& item = r.items[i];
      const history::ResponseItem& got = r.responses[i];
      if (got.status == "error" || got.message_id == history::kZeroUuid) continue;
      const std::string label = partition_label(item.queue, item.partition);
      const std::string what = "item " + std::to_string(i) + " (txn " + item.transaction_id + ") answered " +
                               got.status + " with id " + got.message_id;
      if (const StorageReplay::Location* at = replay.locate(got.message_id)) {
        const StoredMessage* m = replay.find(at->queue, at->partition)->at(at->offset);
        if (at->queue != item.queue || at->partition != item.partition) {
          sink.add(r.step, label,
                   what + ", the id of offset " + std::to_string(at->offset) + " of partition " +
                       partition_label(at->queue, at->partition) + " (txn " + m->transaction_id + ")");
        } else if (m->transaction_id != item.transaction_id) {
          sink.add(r.step, label,
                   what + ", the id of offset " + std::to_string(at->offset) + " which holds txn " +
                       m->transaction_id);
        }
        continue;
      }
      if (got.status == "duplicate") {
        sink.add(r.step, label, what + ", which is the id of no stored message");
        continue;
      }
      // A queued id that storage never recorded (model-agreement's finding)
      // still may not be answered under two partitions.
      auto [seen, first] = answered_in.try_emplace(got.message_id, label, r.step);
      if (!first && seen->second.first != label) {
        sink.add(r.step, label,
                 what + ", an id step " + seen->second.second + " received for partition " + seen->second.first);
      }
    }
  }
  return sink.take();
}

}  // namespace qdt::properties
