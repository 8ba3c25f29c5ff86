// offsets (docs/semantics.md §5, 2.4): per partition, offsets are contiguous from 0 with no
// overlap, and created_at never decreases along offsets.
//
// Each queued push must start at one past the last offset of the pushes
// queued before it, and end where storage's last_offset says; every committed
// push (queued or not) must see a last_offset equal to what the queued pushes
// before it account for.
#include <algorithm>
#include <memory>
#include <memory_resource>
#include <string>
#include <unordered_map>
#include <variant>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/key_view.h"
#include "properties/step_index.h"

namespace qdt::properties {
namespace {

struct Lane {
  int64_t next_offset = 0;  // one past the last offset queued so far
  int64_t created_at_ms = 0;
  size_t created_at_event = 0;
  bool any = false;
};

class Offsets final : public PassChecker {
 public:
  explicit Offsets(const HistoryIndex& index)
      : PassChecker("offsets", {}), h_(index.history()), steps_(index.steps()) {}

  // Storage numbers an emptied partition from 0 again.
  void storage_emptied(size_t /*e*/, const PassState& /*before*/) override { lanes_.clear(); }

  void before(size_t e, const history::Event& event, const PassState& /*state*/) override {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (push == nullptr || push->failed) return;
    Lane& lane = lanes_[PartitionView{push->queue, push->partition}];
    // The texts are built only for a failure: most pushes have none.
    auto label = [&] { return partition_label(push->queue, push->partition); };
    const std::string& step = steps_.step_of(*push, 0);
    auto at = [&] { return event_label(h_, steps_, e, step) + ": "; };
    if (push->last_offset_before != lane.next_offset - 1) {
      sink_.add(Rule::offsets_last_offset,
                {.step = step,
                 .partition = label(),
                 .event = e,
                 .expected = "last_offset " + std::to_string(lane.next_offset - 1),
                 .actual = "last_offset " + std::to_string(push->last_offset_before),
                 .detail = at() + "storage's last_offset (the partition's highest offset) was " +
                           std::to_string(push->last_offset_before) +
                           " before the push, but the pushes queued so far end at " +
                           std::to_string(lane.next_offset - 1)});
    }
    if (!push->queued) return;
    const auto k = static_cast<int64_t>(push->frames.size());
    const int64_t end = push->base_offset + k - 1;
    if (push->base_offset != lane.next_offset) {
      const bool skipped = push->base_offset > lane.next_offset;
      sink_.add(skipped ? Rule::offsets_gap : Rule::offsets_overlap,
                {.step = step,
                 .partition = label(),
                 .event = e,
                 .expected = "queued from offset " + std::to_string(lane.next_offset),
                 .actual = "queued from offset " + std::to_string(push->base_offset),
                 .detail = at() + "queued from offset " + std::to_string(push->base_offset) +
                           ", but the next free offset is " + std::to_string(lane.next_offset) +
                           (skipped ? " (offsets skipped)" : " (overlaps stored offsets)")});
    }
    if (push->rows_after_read && push->last_offset_after != end) {
      sink_.add(Rule::offsets_last_offset,
                {.step = step,
                 .partition = label(),
                 .event = e,
                 .expected = "last_offset " + std::to_string(end),
                 .actual = "last_offset " + std::to_string(push->last_offset_after),
                 .detail = at() + "queued " + std::to_string(k) + " frames from offset " +
                           std::to_string(push->base_offset) + ", so last_offset must be " + std::to_string(end) +
                           ", but storage says " + std::to_string(push->last_offset_after)});
    }
    if (lane.any && push->now_ms < lane.created_at_ms) {
      sink_.add(Rule::offsets_created_at_decreased,
                {.step = step,
                 .partition = label(),
                 .event = e,
                 .expected = "created_at " + std::to_string(lane.created_at_ms) + " ms or later",
                 .actual = "created_at " + std::to_string(push->now_ms) + " ms",
                 .detail = at() + "created_at " + std::to_string(push->now_ms) + " ms at offset " +
                           std::to_string(push->base_offset) + " is older than " +
                           std::to_string(lane.created_at_ms) + " ms of the segment queued by " +
                           event_label(h_, steps_, lane.created_at_event, step) +
                           ", but created_at never decreases along offsets"});
    }
    // Resynchronise on storage's numbering so one gap is reported once.
    lane.next_offset = std::max(lane.next_offset, end + 1);
    if (!lane.any || push->now_ms >= lane.created_at_ms) {
      lane.created_at_ms = push->now_ms;
      lane.created_at_event = e;
    }
    lane.any = true;
  }

 private:
  const history::History& h_;
  const StepIndex& steps_;
  std::pmr::unordered_map<PartitionView, Lane, PartitionViewHash> lanes_{&arena_};  // views into the history
};

}  // namespace

std::unique_ptr<PassChecker> make_offsets(const HistoryIndex& index) { return std::make_unique<Offsets>(index); }

std::vector<Failure> check_offsets(const history::History& history) { return check_alone(make_offsets, history); }

}  // namespace qdt::properties
