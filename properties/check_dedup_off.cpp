// dedup-off (docs/semantics.md §5, 2.4): with window 0 no probe runs and every item is
// queued; with a window the probe is skipped only when the watermark or
// txns_start leaves nothing to probe (last_offset <= max(p_verified,
// txns_start - 1)).
#include <algorithm>
#include <memory>
#include <memory_resource>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/key_view.h"
#include "properties/step_index.h"

namespace qdt::properties {

namespace {

class DedupOff final : public PassChecker {
 public:
  explicit DedupOff(const HistoryIndex& index)
      : PassChecker("dedup-off", {}), h_(index.history()), steps_(index.steps()) {}

  void before(size_t e, const history::Event& event, const PassState& /*state*/) override {
    if (const auto* configure = std::get_if<history::ConfigureEvent>(&event)) {
      windows_[configure->queue] = configure->window_seconds;
    } else if (const auto* purge = std::get_if<history::PurgeEvent>(&event)) {
      txns_start_[PartitionView{purge->queue, purge->partition}] = purge->txns_start_after;
    } else if (const auto* push = std::get_if<history::PushEvent>(&event); push && !push->failed) {
      auto w = windows_.find(push->queue);
      const int64_t window = w == windows_.end() ? 3600 : w->second;
      // Built only for a failure: most pushes have none.
      auto label = [&] { return partition_label(push->queue, push->partition); };
      const std::string& step = steps_.step_of(*push, 0);
      auto at = [&] { return event_label(h_, steps_, e, step) + ": "; };
      if (window == 0) {
        if (push->probe_ran || push->rows_scanned != 0) {
          sink_.add(Rule::dedup_off_probe_ran,
                    {.step = step,
                     .partition = label(),
                     .event = e,
                     .expected = "no probe",
                     .actual = "probe scanned " + std::to_string(push->rows_scanned) + " sidecar rows",
                     .detail = at() + "the duplicate probe ran (" + std::to_string(push->rows_scanned) +
                               " sidecar rows scanned), but with the window at 0 s deduplication is off and no "
                               "probe runs"});
        }
        if (!push->queued || !push->duplicates.empty()) {
          sink_.add(Rule::dedup_off_duplicate_answered,
                    {.step = step,
                     .partition = label(),
                     .event = e,
                     .expected = "every frame queued",
                     .actual = std::to_string(push->duplicates.size()) + " frames duplicate",
                     .detail = at() + "answered duplicate for " + std::to_string(push->duplicates.size()) +
                               " frames, but with the window at 0 s deduplication is off and every item is "
                               "queued"});
        }
        return;
      }
      auto t = txns_start_.find(PartitionView{push->queue, push->partition});
      const int64_t from = std::max(push->p_verified, (t == txns_start_.end() ? 0 : t->second) - 1);
      if (push->last_offset_before > from && !push->probe_ran) {
        sink_.add(Rule::dedup_off_probe_skipped,
                  {.step = step,
                   .partition = label(),
                   .event = e,
                   .expected = "probe of offsets " + std::to_string(from + 1) + " to " +
                               std::to_string(push->last_offset_before),
                   .actual = "no probe",
                   .detail = at() + "storage skipped the duplicate probe (window " + std::to_string(window) +
                             " s) though offsets " + std::to_string(from + 1) + " to " +
                             std::to_string(push->last_offset_before) +
                             " could hold an original: it may skip only up to the larger of p_verified (the "
                             "broker's watermark of offsets already checked) and txns_start - 1 (below txns_start "
                             "no sidecar row is left), here " + std::to_string(from)});
      }
    }
  }

 private:
  const history::History& h_;
  const StepIndex& steps_;
  // Views into the history, hashed: looked up once per push.
  std::pmr::unordered_map<std::string_view, int64_t> windows_{&arena_};
  std::pmr::unordered_map<PartitionView, int64_t, PartitionViewHash> txns_start_{&arena_};  // as the last purge step left it
};

}  // namespace

std::unique_ptr<PassChecker> make_dedup_off(const HistoryIndex& index) { return std::make_unique<DedupOff>(index); }

std::vector<Failure> check_dedup_off(const history::History& history) { return check_alone(make_dedup_off, history); }

}  // namespace qdt::properties
