// ack-resolution (docs/semantics.md §5, 2.9): an ack is acked only through a sidecar row
// (the smallest offset of the key whose row is still present), and
// unresolvable exactly when no row holds the key.
#include <memory>
#include <string>
#include <variant>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/storage_replay.h"

namespace qdt::properties {

namespace {

class AckResolution final : public PassChecker {
 public:
  explicit AckResolution(const HistoryIndex& index) : PassChecker("ack-resolution", {.replay = true}), index_(index) {}

  void before(size_t e, const history::Event& event, const PassState& state) override {
    // A failed ack changed nothing and answered error: not an answer to judge.
    const auto* ack = std::get_if<history::AckEvent>(&event);
    if (!ack || ack->failed) return;
    const PartitionReplay* partition = state.replay.find(ack->queue, ack->partition);
    const std::string label = partition_label(ack->queue, ack->partition);
    auto at = [&] {
      return "ack " + event_label(index_.history(), index_.steps(), e, ack->step) + " of txn " + ack->transaction_id +
             " answered ";
    };
    if (!ack->answer_problem.empty()) {
      // Never skipped: an answer nobody can read judges nothing (docs/semantics.md §9.4).
      sink_.add(Rule::ack_resolution_unreadable_answer,
                {.step = ack->step, .partition = label, .event = e, .detail = at() + ack->answer_problem});
      return;
    }
    const std::span<const int64_t> live = state.replay.live_offsets(ack->queue, ack->partition, ack->transaction_id);
    if (partition == nullptr || live.empty()) {
      if (ack->acked) {
        sink_.add(Rule::ack_resolution_acked_without_row,
                  {.step = ack->step,
                   .partition = label,
                   .event = e,
                   .expected = "unresolvable",
                   .actual = "acked offset " + std::to_string(ack->offset),
                   .detail = at() + "acked offset " + std::to_string(ack->offset) +
                             ", but no sidecar row (the key's dedup entry) holds the key (never stored, or purged), "
                             "so the ack is unresolvable"});
      }
      return;
    }
    const int64_t smallest = live.front();
    const StoredMessage* m = partition->at(smallest);
    const std::string id = m->segment_present ? m->message_id() : history::kZeroUuid;
    if (!ack->acked) {
      sink_.add(Rule::ack_resolution_unresolvable_with_row,
                {.step = ack->step,
                 .partition = label,
                 .event = e,
                 .expected = "acked offset " + std::to_string(smallest),
                 .actual = "unresolvable",
                 .detail = at() + "unresolvable, but the sidecar row (the key's dedup entry) of offset " +
                           std::to_string(smallest) + " holds the key, so the ack resolves to that offset"});
    } else if (ack->offset != smallest || ack->message_id != id) {
      sink_.add(Rule::ack_resolution_wrong_offset,
                {.step = ack->step,
                 .partition = label,
                 .event = e,
                 .expected = "acked offset " + std::to_string(smallest) + " id " + id,
                 .actual = "acked offset " + std::to_string(ack->offset) + " id " + ack->message_id,
                 .detail = at() + "acked offset " + std::to_string(ack->offset) + " id " + ack->message_id +
                           ", but an ack resolves to the key's smallest offset with a sidecar row, offset " +
                           std::to_string(smallest) + " id " + id});
    }
  }

 private:
  const HistoryIndex& index_;
};

}  // namespace

std::unique_ptr<PassChecker> make_ack_resolution(const HistoryIndex& index) {
  return std::make_unique<AckResolution>(index);
}

std::vector<Failure> check_ack_resolution(const history::History& history) {
  return check_alone(make_ack_resolution, history);
}

}  // namespace qdt::properties
