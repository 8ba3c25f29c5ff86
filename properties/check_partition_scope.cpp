// partition-scope (docs/semantics.md §5, 2.3): keys never interact across partitions or
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
#include <optional>
#include <span>
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
#include "properties/key_ids.h"
#include "properties/key_view.h"
#include "properties/message_ids.h"
#include "properties/step_index.h"
#include "properties/storage_replay.h"

namespace qdt::properties {

namespace {

class PartitionScope final : public PassChecker {
 public:
  explicit PartitionScope(const HistoryIndex& index)
      : PassChecker("partition-scope", {.replay = true}), index_(index), keys_(index.keys()), stored_(keys_.size()) {}

  void before(size_t e, const history::Event& event, const PassState& state) override {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (!push || push->failed) return;
    const PartitionReplay* partition = state.push_partition;
    for (const auto& [index, offset] : push->duplicates) {
      if (index >= push->frames.size()) continue;
      const std::string& txn = push->frames[index].transaction_id;
      const StoredMessage* original = partition ? partition->at(offset) : nullptr;
      if (original != nullptr && original->transaction_id() == txn) continue;
      // The partitions that stored the key before this event; none: no
      // original anywhere, no-false-duplicate's finding.
      const std::string label = partition_label(push->queue, push->partition);
      std::set<std::string> labels;
      for (uint32_t k : keys_of(txn)) {
        if (stored_[k]) labels.insert(partition_label(keys_.key(k).queue, keys_.key(k).partition));
      }
      std::string others;
      for (const std::string& p : labels) {
        if (p != label) others += (others.empty() ? "" : ", ") + p;
      }
      if (others.empty()) continue;
      const std::string& step = index_.steps().step_of(*push, index);
      sink_.add(Rule::partition_scope_probe_crossed_partitions,
                {.step = step,
                 .partition = label,
                 .event = e,
                 .expected = "queued",
                 .actual = "duplicate of offset " + std::to_string(offset),
                 .detail = event_label(index_.history(), index_.steps(), e, step) + ": frame " +
                           std::to_string(index) + " (txn " + txn + ") was answered as a repeat of offset " +
                           std::to_string(offset) +
                           ", which does not hold its key in this partition; the key is stored only in another (" +
                           others + "), so the duplicate probe looked across partitions"});
    }
    if (push->queued) {
      for (uint32_t k : keys_.frames(e)) stored_[k] = true;
    }
  }

  // What storage held before a power loss emptied it still names the ids
  // answered then; the keys it stored are gone.
  void storage_emptied(size_t /*e*/, const PassState& before) override {
    emptied_.push_back(&before.replay);
    stored_.assign(stored_.size(), false);
  }

  void finish(const PassState& state) override {
    const StorageReplay& replay = state.replay;
    const MessageIds& messages = index_.messages();
    const std::optional<uint32_t> zero = messages.find(history::kZeroUuid);
    const std::vector<history::RequestRecord>& requests = index_.history().requests;
    // Which partition each answered but unstored id was first seen under.
    std::map<std::string, std::pair<std::string, std::string>> answered_in;  // id -> (partition, step)
    for (size_t n = 0; n < requests.size(); ++n) {
      const history::RequestRecord& r = requests[n];
      if (r.rejected) continue;
      const std::span<const uint32_t> ids = messages.responses(n);
      for (size_t i = 0; i < r.items.size() && i < r.responses.size(); ++i) {
        const history::ItemRecord& item = r.items[i];
        const history::ResponseItem& got = r.responses[i];
        if (got.status == "error" || ids[i] == zero) continue;
        auto what = [&] {
          return "item " + std::to_string(i) + " (txn " + item.transaction_id + ") was answered " + got.status +
                 " with id " + got.message_id;
        };
        const StorageReplay::Location* at = replay.locate(ids[i]);
        for (auto it = emptied_.rbegin(); at == nullptr && it != emptied_.rend(); ++it) at = (*it)->locate(ids[i]);
        if (at != nullptr) {
          const StoredMessage* m = at->message;
          if (at->queue != item.queue || at->partition != item.partition) {
            sink_.add(Rule::partition_scope_id_of_other_partition,
                      {.step = r.step,
                       .partition = partition_label(item.queue, item.partition),
                       .expected = "an id of " + partition_label(item.queue, item.partition),
                       .actual = "an id of " + partition_label(at->queue, at->partition),
                       .detail = what() + ", but that id belongs to offset " + std::to_string(at->offset) +
                                 " of another partition (" + partition_label(at->queue, at->partition) + ", txn " +
                                 m->transaction_id() + ")"});
          } else if (m->transaction_id() != item.transaction_id) {
            sink_.add(Rule::partition_scope_id_of_other_key,
                      {.step = r.step,
                       .partition = partition_label(item.queue, item.partition),
                       .expected = "an id of txn " + item.transaction_id,
                       .actual = "an id of txn " + m->transaction_id(),
                       .detail = what() + ", but that id belongs to offset " + std::to_string(at->offset) +
                                 ", which holds another key (txn " + m->transaction_id() + ")"});
          }
          continue;
        }
        const std::string label = partition_label(item.queue, item.partition);
        if (got.status == "duplicate") {
          sink_.add(Rule::partition_scope_id_not_stored,
                    {.step = r.step, .partition = label, .detail = what() + ", but no stored message has that id"});
          continue;
        }
        // A queued id that storage never recorded (model-agreement's finding)
        // still may not be answered under two partitions.
        auto [seen, first] = answered_in.try_emplace(got.message_id, label, r.step);
        if (!first && seen->second.first != label) {
          sink_.add(Rule::partition_scope_id_of_other_partition,
                    {.step = r.step,
                     .partition = label,
                     .expected = "an id of " + label,
                     .actual = "an id answered for " + seen->second.first,
                     .detail = what() + ", but that id was already answered for another partition (step " +
                               seen->second.second + ", " + seen->second.first + ")"});
        }
      }
    }
  }

 private:
  // Every key id with transactionId `txn`, whatever its partition. Indexed on
  // first use: only a duplicate whose offset does not hold its key asks.
  std::span<const uint32_t> keys_of(std::string_view txn) {
    if (keys_by_txn_.empty()) {
      keys_by_txn_.reserve(keys_.size());
      for (uint32_t k = 0; k < keys_.size(); ++k) keys_by_txn_[keys_.key(k).txn].push_back(k);
    }
    auto it = keys_by_txn_.find(txn);
    return it == keys_by_txn_.end() ? std::span<const uint32_t>() : std::span<const uint32_t>(it->second);
  }

  const HistoryIndex& index_;
  const KeyIds& keys_;
  // By key id: a queued push of the events walked so far stored the key. A
  // table from transactionId to partitions, filled per frame, cost a string
  // hash and a node per push for a question only a broken history asks.
  std::vector<bool> stored_;
  std::vector<const StorageReplay*> emptied_;  // storage as each power loss found it, oldest first
  std::pmr::unordered_map<std::string_view, std::pmr::vector<uint32_t>> keys_by_txn_{&arena_};
};

}  // namespace

std::unique_ptr<PassChecker> make_partition_scope(const HistoryIndex& index) {
  return std::make_unique<PartitionScope>(index);
}

std::vector<Failure> check_partition_scope(const history::History& history) {
  return check_alone(make_partition_scope, history);
}

}  // namespace qdt::properties
