#include "sim/world/world.h"

#include <cassert>

#include "sim/world/held_request.h"

// A producer's push (World::push), its producers and the footprints of its
// sends: apart from world.cpp, which builds and runs the world.
namespace qdt::sim {

Producer& World::producer(const std::string& name) {
  auto it = producers_.find(name);
  if (it == producers_.end()) {
    // Ordered draws: sub-seeds in order of first use, itself determined by
    // the seed. Keyed: a function of the seed and the name, not of which
    // producer pushed first, so concurrent sends commute.
    const uint64_t seed = network_.keyed_draws() ? Rng::derive(producers_seed_, Rng::key_of(name.data(), name.size()))
                                                 : producer_rng_.fork();
    it = producers_.emplace(name, Producer(name, seed)).first;
  }
  return it->second;
}

namespace {
uint64_t producer_resource(const std::string& producer) {
  return resource::producer(Rng::key_of(producer.data(), producer.size()));
}
}  // namespace

Footprint World::send_footprint(const std::string& producer) const {
  return network_.footprint({producer_resource(producer)});
}

World::PushOutcome World::push(const std::string& step, uint32_t broker, const std::string& producer_name,
                               nlohmann::json items, const RetryPolicy& policy, uint64_t send_region) {
  assert(broker < brokers_.size());
  assert(policy.attempts >= 1 && policy.timeout_ms >= 1);
  const uint64_t region = send_region != 0 ? send_region : SeededScheduler::new_region();
  Producer& p = producer(producer_name);
  // Keys are set once: every retry resends the same items with the same transactionIds.
  const std::shared_ptr<const nlohmann::json> request = hold_request(p.prepare(std::move(items)));
  const uint64_t push_id = ++next_push_;
  const uint64_t producer_push = p.next_push();
  PushOutcome outcome;
  // What the producer finally reports, for liveness and client-visible.
  const size_t record = history_.outcomes.size();
  history_.outcomes.push_back({step, producer_name, push_id, 0, false, false, {}, {}});
  for (uint32_t attempt = 0; attempt < policy.attempts; ++attempt) {
    if (attempt > 0) {
      SeededScheduler::label_next_step(region, send_footprint(producer_name));  // the retry's send
      clock_.sleep_for(policy.backoff_ms);
    }
    trace_.begin(clock_.now_ms(), "send")
        .field("push", static_cast<int64_t>(push_id))
        .field("attempt", attempt)
        .field("step", step)
        .field("producer", producer_name)
        .field("b", broker);
    if (attempt == 0) trace_.field_json("body", *request);
    trace_.end();
    auto state = std::make_shared<Attempt>();
    network_.send(*brokers_[broker], request, AttemptMeta{step, producer_name, push_id, producer_push, attempt}, state);
    outcome.attempts = attempt + 1;
    if (send_region != 0) {
      // The send ends at the wait. A push child's fiber ends after its push:
      // if this wait ends it, what follows touches only this push (its
      // outcome record, the runner's entries for its step) and ends the
      // fiber (a retry suspends first, and the label does not hold).
      SeededScheduler::label_rest_of_fiber(Footprint::of({resource::push(push_id), producer_resource(producer_name)}),
                                           region);
    } else {
      SeededScheduler::label_next_step(region, Footprint());  // the send ends at the wait
    }
    if (!clock_.wait_for(policy.timeout_ms, state->wakeup)) {
      trace_.begin(clock_.now_ms(), "timeout").field("push", static_cast<int64_t>(push_id)).field("attempt", attempt).end();
      continue;
    }
    assert(state->response.has_value());
    outcome.response = std::move(state->response);
    // The SDK retries a timeout or a storage error; a verdict is final.
    bool failed = false;
    for (const auto& item : outcome.response->items) failed = failed || item.status == impl::ItemStatus::error;
    if (!failed) break;
  }
  history::PushOutcomeRecord& r = history_.outcomes[record];
  r.attempts = outcome.attempts;
  r.finished = true;
  if (outcome.response) {
    r.rejected = outcome.response->rejected;
    r.statuses.reserve(outcome.response->items.size());
    r.message_ids.reserve(outcome.response->items.size());
    for (const auto& item : outcome.response->items) {
      r.statuses.push_back(impl::status_name(item.status));
      r.message_ids.push_back(item.message_id);
    }
  } else if (request->is_array()) {
    r.statuses.assign(request->size(), "timeout");
    r.message_ids.assign(request->size(), history::kZeroUuid);
  }
  return outcome;
}

}  // namespace qdt::sim
