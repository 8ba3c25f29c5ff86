// sidecar-floor (docs/semantics.md §5, 2.8): sidecar rows younger than max(window,
// completedRetentionSeconds, 900) at the purge step's now are never purged.
// Its own checker because it is the one retention rule that protects
// deduplication and acks (a row purged inside the window lets a repeat be
// written twice) and must hold even when the window is 0.
//
// The floor comes from the queue options the history configured, and a row's
// age from the created_at its push committed with (the model's copy), never
// from what the purge event says about itself.
#include <algorithm>
#include <string>
#include <variant>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/model_follower.h"

namespace qdt::properties {

namespace {

class SidecarFloor final : public PassChecker {
 public:
  explicit SidecarFloor(const HistoryIndex& /*index*/) : PassChecker("sidecar-floor", {.model = true}) {}

  void before(size_t e, const history::Event& event, const PassState& state) override {
    if (const auto* purge = std::get_if<history::PurgeEvent>(&event); purge && !purge->failed) {
      const model::QueueOptions o = state.model.model().options(purge->queue);
      const int64_t floor = std::max({o.window_seconds, o.completed_retention_seconds, model::kSidecarFloorSeconds});
      const int64_t cutoff_ms = purge->now_ms - floor * 1000;
      const model::Partition* partition = state.model.find(purge->queue, purge->partition);
      for (const history::SidecarRowRecord& row : purge->rows) {
        int64_t created_at_ms = row.created_at_ms;  // only when the model never stored the row
        if (partition != nullptr && row.base_offset >= 0 && row.base_offset <= partition->last_offset()) {
          created_at_ms = partition->messages()[static_cast<size_t>(row.base_offset)].created_at_ms;
        }
        if (created_at_ms < cutoff_ms) continue;
        sink_.add(Rule::sidecar_floor_young_row_purged,
                  {.partition = partition_label(purge->queue, purge->partition),
                   .event = e,
                   .expected = "rows younger than " + std::to_string(floor) + " s kept",
                   .actual = "removed a row " + std::to_string(purge->now_ms - created_at_ms) + " ms old",
                   .detail = "purge " + event_label(e, "", purge->now_ms) + " removed the sidecar row of offsets [" +
                             std::to_string(row.base_offset) + ", " + std::to_string(row.end_offset) +
                             "], created at " + std::to_string(created_at_ms) + " ms (" +
                             std::to_string(purge->now_ms - created_at_ms) + " ms old), but rows younger than " +
                             std::to_string(floor) + " s are kept: the floor is the largest of the window (" +
                             std::to_string(o.window_seconds) + " s), completedRetentionSeconds (" +
                             std::to_string(o.completed_retention_seconds) + " s) and 900 s; the step used " +
                             std::to_string(purge->floor_seconds) + " s"});
      }
    }
  }
};

}  // namespace

std::unique_ptr<PassChecker> make_sidecar_floor(const HistoryIndex& index) {
  return std::make_unique<SidecarFloor>(index);
}

std::vector<Failure> check_sidecar_floor(const history::History& history) {
  return check_alone(make_sidecar_floor, history);
}

}  // namespace qdt::properties
