// liveness (docs/semantics.md §5): once faults stop and time advances past every timeout,
// every pending item reaches a final outcome and every lock is released.
//
// - every delivered request that was neither lost in a broker crash nor
//   rejected whole has one response entry per item (the broker answered it);
// - when the recorder filled History::outcomes: every logical push with any
//   RequestRecord has exactly one PushOutcomeRecord, `finished`, with one
//   final status per item (queued | duplicate | error | timeout), or
//   `rejected`;
// - no storage connection is still inside a transaction at the end;
// - the run never stalled with requests waiting inside a broker.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "properties/checks.h"
#include "properties/failure_sink.h"

namespace qdt::properties {
namespace {

bool is_final_status(const std::string& s) {
  return s == "queued" || s == "duplicate" || s == "error" || s == "timeout";
}

std::string label_of(const history::RequestRecord& r) {
  return r.items.empty() ? "" : partition_label(r.items[0].queue, r.items[0].partition);
}

// Records grouped by push id: sorted by it, each group in record order (a
// stable sort; most histories are already in order). A flat sorted vector
// instead of a std::map: one allocation, not one node per push.
template <typename Record>
std::vector<std::pair<uint64_t, const Record*>> by_push_id(const std::vector<Record>& records) {
  std::vector<std::pair<uint64_t, const Record*>> out;
  out.reserve(records.size());
  for (const Record& r : records) out.emplace_back(r.push_id, &r);
  auto less = [](const auto& x, const auto& y) { return x.first < y.first; };
  if (!std::is_sorted(out.begin(), out.end(), less)) std::stable_sort(out.begin(), out.end(), less);
  return out;
}

void check_outcomes(const history::History& history, FailureSink& sink) {
  // push id -> its first answered record (which says how many items the push
  // has), else its first record; a delivery lost on the way or in a crash
  // carries no items.
  auto answered = [](const history::RequestRecord& r) { return r.delivered && !r.lost_in_crash; };
  const auto requests = by_push_id(history.requests);
  // push id -> its first outcome record; every later one is reported, in the
  // outcomes' order.
  const auto outcomes = by_push_id(history.outcomes);
  std::vector<bool> repeated(history.outcomes.size(), false);
  for (size_t k = 1; k < outcomes.size(); ++k) {
    if (outcomes[k].first == outcomes[k - 1].first) {
      repeated[static_cast<size_t>(outcomes[k].second - history.outcomes.data())] = true;
    }
  }
  for (size_t k = 0; k < history.outcomes.size(); ++k) {
    if (!repeated[k]) continue;
    const history::PushOutcomeRecord& o = history.outcomes[k];
    sink.add(Rule::liveness_two_outcomes,
             {.step = o.step,
              .expected = "one outcome",
              .actual = "two outcomes",
              .detail = "push " + std::to_string(o.push_id) + " has two outcome records: one per logical push"});
  }
  size_t next_outcome = 0;
  for (size_t k = 0; k < requests.size();) {
    const uint64_t push_id = requests[k].first;
    const history::RequestRecord* r = requests[k].second;
    for (; k < requests.size() && requests[k].first == push_id; ++k) {
      if (!answered(*r) && answered(*requests[k].second)) r = requests[k].second;
    }
    auto at = [&, id = push_id] { return "push " + std::to_string(id) + " (producer " + r->producer + ")"; };
    while (next_outcome < outcomes.size() && outcomes[next_outcome].first < push_id) ++next_outcome;
    if (next_outcome == outcomes.size() || outcomes[next_outcome].first != push_id) {
      sink.add(Rule::liveness_no_outcome,
               {.step = r->step,
                .partition = label_of(*r),
                .expected = "an outcome",
                .actual = "none",
                .detail = at() + " was sent but its producer never reported an outcome"});
      continue;
    }
    const history::PushOutcomeRecord& o = *outcomes[next_outcome].second;
    if (!o.finished) {
      sink.add(Rule::liveness_still_waiting,
               {.step = r->step,
                .partition = label_of(*r),
                .expected = "finished",
                .actual = "waiting after " + std::to_string(o.attempts) + " attempts",
                .detail = at() + " was still waiting when the run ended, after " + std::to_string(o.attempts) +
                          " attempts"});
      continue;
    }
    if (o.rejected) continue;
    if (answered(*r) && !r->rejected && o.statuses.size() != r->items.size()) {
      sink.add(Rule::liveness_item_not_final,
               {.step = r->step,
                .partition = label_of(*r),
                .expected = std::to_string(r->items.size()) + " final statuses",
                .actual = std::to_string(o.statuses.size()),
                .detail = at() + " has " + std::to_string(r->items.size()) + " items but " +
                          std::to_string(o.statuses.size()) + " final statuses"});
    }
    for (size_t i = 0; i < o.statuses.size(); ++i) {
      if (is_final_status(o.statuses[i])) continue;
      sink.add(Rule::liveness_item_not_final,
               {.step = r->step,
                .partition = label_of(*r),
                .expected = "queued, duplicate, error or timeout",
                .actual = o.statuses[i],
                .detail = at() + " item " + std::to_string(i) + " ended as '" + o.statuses[i] +
                          "', not a final status (queued, duplicate, error, timeout)"});
    }
  }
}

}  // namespace

std::vector<Failure> check_liveness(const history::History& history) {
  FailureSink sink("liveness");
  for (const history::RequestRecord& r : history.requests) {
    if (!r.delivered || r.lost_in_crash || r.rejected) continue;
    if (r.responses.size() == r.items.size()) continue;
    sink.add(Rule::liveness_response_missing_items,
             {.step = r.step,
              .partition = label_of(r),
              .expected = std::to_string(r.items.size()) + " answers",
              .actual = std::to_string(r.responses.size()),
              .detail = "request " + std::to_string(r.request) + " (push " + std::to_string(r.push_id) +
                        ", attempt " + std::to_string(r.attempt) + ") was delivered to broker " +
                        std::to_string(r.broker) + " with " + std::to_string(r.items.size()) +
                        " items but answered " + std::to_string(r.responses.size()) +
                        " of them, though it was not lost in a crash"});
  }
  if (history.recorded_outcomes) check_outcomes(history, sink);
  for (const history::Stall& s : history.stalls) {
    sink.add(Rule::liveness_stalled,
             {.detail = "the run stalled at " + std::to_string(s.at_ms) + " ms: " + std::to_string(s.waiters) +
                        " request" + (s.waiters == 1 ? "" : "s") + " waited in broker " + std::to_string(s.broker) +
                        "'s fusion lanes (where requests wait to share one flush) for a wake nobody would send "
                        "(every fiber waited, no timer was pending); "
                        "they were ended as lost to finish the run"});
  }
  for (const std::string& connection : history.open_transactions_at_end) {
    sink.add(Rule::liveness_lock_held_at_end,
             {.detail = "connection '" + connection +
                        "' was still inside a transaction (holding a lock) when the run ended; every lock is "
                        "released in the end"});
  }
  return sink.take();
}

}  // namespace qdt::properties
