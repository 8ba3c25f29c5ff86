// deadlock-free (docs/semantics.md §5, §9.5): no storage transaction is
// aborted by a deadlock and every lock wait ends.
//
// Judged from History::lock_failures, which the recorder fills from what
// each storage call raised: a victim of the engine's wait-cycle breaker (or
// of PostgreSQL's own detector, SQLSTATE 40P01), or a call that gave up a
// lock wait after the bound. An injected cancel (a fault of the plan) is a
// fault, not a deadlock, and is never recorded there. On SQLite, whose one
// database lock admits no wait cycle, only an abandoned wait can fail it.
#include <string>
#include <variant>

#include "properties/checks.h"
#include "properties/failure_sink.h"

namespace qdt::properties {
namespace {

// The script step a failed transaction answers for: an ack's own, or the
// request that sent a push's first frame.
std::string step_of(const history::History& history, const history::LockFailure& f) {
  if (!f.step.empty() || f.event < 0 || static_cast<size_t>(f.event) >= history.events.size()) return f.step;
  const auto* push = std::get_if<history::PushEvent>(&history.events[static_cast<size_t>(f.event)]);
  if (push == nullptr || push->frames.empty()) return "";
  for (const history::RequestRecord& r : history.requests) {
    if (r.request == push->frames[0].origin_request) return r.step;
  }
  return "";
}

}  // namespace

std::vector<Failure> check_deadlock_free(const history::History& history) {
  FailureSink sink("deadlock-free");
  if (history.lock_failures.empty()) return sink.take();
  const StepIndex steps(history);
  for (const history::LockFailure& f : history.lock_failures) {
    const std::string label = f.partition.empty() ? f.queue : partition_label(f.queue, f.partition);
    const std::string what = f.deadlock ? " was aborted to break a wait cycle (SQLSTATE 40P01)"
                                        : " gave up a lock wait that did not end";
    const std::string step = step_of(history, f);
    const bool recorded = f.event >= 0 && static_cast<size_t>(f.event) < history.events.size();
    sink.add(f.deadlock ? Rule::deadlock_free_deadlock : Rule::deadlock_free_abandoned_wait,
             {.step = step,
              .partition = label,
              .event = recorded ? std::optional<size_t>(static_cast<size_t>(f.event)) : std::nullopt,
              .expected = "commit or rollback",
              .actual = f.deadlock ? "aborted as a deadlock victim" : "abandoned a lock wait",
              .detail = "the " + f.call + " transaction of '" + f.connection + "' at " + std::to_string(f.at_ms) +
                        " ms" + what +
                        (recorded ? ", recorded as " + event_label(history, steps, static_cast<size_t>(f.event), step)
                                  : "") +
                        "; no storage transaction may end for want of a lock"});
  }
  return sink.take();
}

}  // namespace qdt::properties
