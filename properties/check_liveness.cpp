// liveness (SPEC 5): once faults stop and time advances past every timeout,
// every pending item reaches a final outcome and every lock is released.
//
// - every delivered request that was neither lost in a broker crash nor
//   rejected whole has one response entry per item (the broker answered it);
// - when the recorder filled History::outcomes: every logical push with any
//   RequestRecord has exactly one PushOutcomeRecord, `finished`, with one
//   final status per item (queued | duplicate | error | timeout), or
//   `rejected`;
// - no storage connection is still inside a transaction at the end.
#include <map>
#include <set>
#include <string>

#include "properties/checks.h"
#include "properties/failure_sink.h"

namespace qdt::properties {
namespace {

const std::set<std::string> kFinalStatuses = {"queued", "duplicate", "error", "timeout"};

std::string label_of(const history::RequestRecord& r) {
  return r.items.empty() ? "" : partition_label(r.items[0].queue, r.items[0].partition);
}

void check_outcomes(const history::History& history, FailureSink& sink) {
  // push id -> its first answered record (which says how many items the push
  // has); a delivery lost on the way or in a crash carries no items.
  auto answered = [](const history::RequestRecord& r) { return r.delivered && !r.lost_in_crash; };
  std::map<uint64_t, const history::RequestRecord*> pushes;
  for (const history::RequestRecord& r : history.requests) {
    auto [it, inserted] = pushes.try_emplace(r.push_id, &r);
    if (!inserted && !answered(*it->second) && answered(r)) it->second = &r;
  }
  std::map<uint64_t, const history::PushOutcomeRecord*> outcomes;
  for (const history::PushOutcomeRecord& o : history.outcomes) {
    if (!outcomes.emplace(o.push_id, &o).second) {
      sink.add(o.step, "", "push " + std::to_string(o.push_id) + " has two outcome records: one per logical push");
    }
  }
  for (const auto& [push_id, r] : pushes) {
    auto at = [&, id = push_id] { return "push " + std::to_string(id) + " (producer " + r->producer + ")"; };
    auto it = outcomes.find(push_id);
    if (it == outcomes.end()) {
      sink.add(r->step, label_of(*r), at() + " was sent but its producer never reported an outcome");
      continue;
    }
    const history::PushOutcomeRecord& o = *it->second;
    if (!o.finished) {
      sink.add(r->step, label_of(*r),
               at() + " was still waiting when the run ended, after " + std::to_string(o.attempts) + " attempts");
      continue;
    }
    if (o.rejected) continue;
    if (answered(*r) && !r->rejected && o.statuses.size() != r->items.size()) {
      sink.add(r->step, label_of(*r),
               at() + " has " + std::to_string(r->items.size()) + " items but " + std::to_string(o.statuses.size()) +
                   " final statuses");
    }
    for (size_t i = 0; i < o.statuses.size(); ++i) {
      if (kFinalStatuses.contains(o.statuses[i])) continue;
      sink.add(r->step, label_of(*r),
               at() + " item " + std::to_string(i) + " ended as '" + o.statuses[i] +
                   "', not a final status (queued, duplicate, error, timeout)");
    }
  }
}

}  // namespace

std::vector<Failure> check_liveness(const history::History& history) {
  FailureSink sink("liveness");
  for (const history::RequestRecord& r : history.requests) {
    if (!r.delivered || r.lost_in_crash || r.rejected) continue;
    if (r.responses.size() == r.items.size()) continue;
    sink.add(r.step, label_of(r),
             "request " + std::to_string(r.request) + " (push " + std::to_string(r.push_id) + ", attempt " +
                 std::to_string(r.attempt) + ") was delivered to broker " + std::to_string(r.broker) + " with " +
                 std::to_string(r.items.size()) + " items but answered " + std::to_string(r.responses.size()) +
                 " of them, though it was not lost in a crash");
  }
  if (history.recorded_outcomes) check_outcomes(history, sink);
  for (const std::string& connection : history.open_transactions_at_end) {
    sink.add("", "", "connection '" + connection + "' was still inside a transaction (holding a lock) at the end");
  }
  return sink.take();
}

}  // namespace qdt::properties
