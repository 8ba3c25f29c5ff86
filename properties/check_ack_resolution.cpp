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
  explicit AckResolution(const HistoryIndex& /*index*/) : PassChecker("ack-resolution", {.replay = true}) {}

  void before(size_t e, const history::Event& event, const PassState& state) override {
    // A failed ack changed nothing and answered error: not an answer to judge.
    const auto* ack = std::get_if<history::AckEvent>(&event);
    if (!ack || ack->failed) return;
    const PartitionReplay* partition = state.replay.find(ack->queue, ack->partition);
    const std::string label = partition_label(ack->queue, ack->partition);
    const std::string at = "ack event " + std::to_string(e) + " of txn " + ack->transaction_id + ": ";
    const std::span<const int64_t> live = state.replay.live_offsets(ack->queue, ack->partition, ack->transaction_id);
    if (partition == nullptr || live.empty()) {
      if (ack->acked) {
        sink_.add(ack->step, label,
                  at + "acked offset " + std::to_string(ack->offset) +
                      " but no sidecar row holds the key (never stored, or purged)");
      }
      return;
    }
    const int64_t smallest = live.front();
    const StoredMessage* m = partition->at(smallest);
    const std::string id = m->segment_present ? m->message_id() : history::kZeroUuid;
    if (!ack->acked) {
      sink_.add(ack->step, label,
                at + "unresolvable, but the sidecar row of offset " + std::to_string(smallest) + " holds the key");
    } else if (ack->offset != smallest || ack->message_id != id) {
      sink_.add(ack->step, label,
                at + "acked offset " + std::to_string(ack->offset) + " id " + ack->message_id +
                    "; the smallest offset with a sidecar row is " + std::to_string(smallest) + " id " + id);
    }
  }
};

}  // namespace

std::unique_ptr<PassChecker> make_ack_resolution(const HistoryIndex& index) {
  return std::make_unique<AckResolution>(index);
}

std::vector<Failure> check_ack_resolution(const history::History& history) {
  return check_alone(make_ack_resolution, history);
}

}  // namespace qdt::properties
