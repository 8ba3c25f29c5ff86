// nothing-written-on-duplicate (docs/semantics.md §5, 2.4 step 4): a duplicate verdict
// leaves last_offset, segments and sidecar unchanged, and so does a failed
// transaction ("nothing of a failed transaction is visible"). The recorder
// reads a fingerprint (the partition's last_offset and txns_start, and
// SQLite's counters of segment and sidecar rows the connection's committed
// transactions wrote) under the writer's lock before its first write and
// after it ended: nothing may move.
#include <memory>
#include <string>
#include <variant>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/step_index.h"

namespace qdt::properties {
namespace {

// What moved between two fingerprints: "segment rows written 3 -> 4, ...".
std::string changes(const history::PartitionFingerprint& before, const history::PartitionFingerprint& after) {
  std::string out;
  auto moved = [&](const char* name, int64_t x, int64_t y) {
    if (x == y) return;
    out.append(out.empty() ? "" : ", ").append(name);
    out += " went from " + std::to_string(x) + " to " + std::to_string(y);
  };
  moved("last_offset", before.last_offset, after.last_offset);
  moved("txns_start", before.txns_start, after.txns_start);
  moved("the count of segment rows written", before.segments, after.segments);
  moved("the count of sidecar rows written", before.sidecar_rows, after.sidecar_rows);
  return out;
}

class NothingWrittenOnDuplicate final : public PassChecker {
 public:
  explicit NothingWrittenOnDuplicate(const HistoryIndex& index)
      : PassChecker("nothing-written-on-duplicate", {}), h_(index.history()), steps_(index.steps()) {}

  void before(size_t e, const history::Event& event, const PassState& /*state*/) override {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (push == nullptr || (push->queued && !push->failed)) return;
    if (!push->rows_after_read) return;  // power lost before the after-inspection: durability judges
    const std::string verdict = push->failed ? "failed" : "answered duplicate";
    // The step of the first duplicate frame, else of the segment's first frame.
    const std::string& step =
        steps_.step_of(*push, push->failed || push->duplicates.empty() ? 0 : push->duplicates.front().first);
    const std::string label = partition_label(push->queue, push->partition);
    const std::string at = event_label(h_, steps_, e, step) + " " + verdict;
    const char* rule = push->failed ? "nothing of a failed transaction may be visible"
                                    : "a duplicate answer writes nothing";
    const Rule broken = push->failed ? Rule::nothing_written_on_duplicate_failed_wrote
                                     : Rule::nothing_written_on_duplicate_duplicate_wrote;
    if (push->last_offset_after != push->last_offset_before) {
      sink_.add(broken, {.step = step,
                         .partition = label,
                         .event = e,
                         .expected = "last_offset " + std::to_string(push->last_offset_before),
                         .actual = "last_offset " + std::to_string(push->last_offset_after),
                         .detail = at + " but moved last_offset from " + std::to_string(push->last_offset_before) +
                                   " to " + std::to_string(push->last_offset_after) + "; " + rule});
    }
    if (push->rows_after != push->rows_before) {
      sink_.add(broken, {.step = step,
                         .partition = label,
                         .event = e,
                         .expected = "rows unchanged",
                         .actual = changes(push->rows_before, push->rows_after),
                         .detail = at + " but changed the rows: " + changes(push->rows_before, push->rows_after) +
                                   "; " + rule});
    }
  }

 private:
  const history::History& h_;
  const StepIndex& steps_;
};

}  // namespace

std::unique_ptr<PassChecker> make_nothing_written_on_duplicate(const HistoryIndex& index) {
  return std::make_unique<NothingWrittenOnDuplicate>(index);
}

std::vector<Failure> check_nothing_written_on_duplicate(const history::History& history) {
  return check_alone(make_nothing_written_on_duplicate, history);
}

}  // namespace qdt::properties
