#include "sim/world/network.h"

#include <cassert>

#include "impl/broker/push_request.h"
#include "sim/schedule/scheduler.h"
#include "sim/world/storage_link.h"

namespace qdt::sim {

Footprint Network::footprint(std::initializer_list<uint64_t> resources) const {
  assert(resources.size() == 1);
  if (keyed_) return Footprint::of(resources);
  return Footprint::of({*resources.begin(), resource::ordered_draws});
}

void Network::send(impl::Broker& broker, std::shared_ptr<const nlohmann::json> request, const AttemptMeta& meta,
                   std::shared_ptr<Attempt> attempt) {
  // Keyed draws (choices schedules and the schedule search) only: random
  // runs draw from the shared generator in pick order, as before.
  const uint64_t attempt_seed =
      keyed_ ? Rng::derive(Rng::derive(Rng::derive(seed_, Rng::key_of(meta.producer.data(), meta.producer.size())),
                                       meta.producer_push),
                           meta.attempt)
             : 0;
  Rng own(attempt_seed);
  // Draw the duplication now, in the sender's turn.
  const int copies = (keyed_ ? own : rng_).chance_ppm(config_.duplicate_ppm) ? 2 : 1;
  if (copies == 2) stats_.duplicated++;
  for (int c = 0; c < copies; ++c) {
    // A delivery's first leg draws its latency from its own generator and
    // sleeps: it touches this push only (ids drawn from counters are names,
    // sim/schedule/footprint.h).
    const uint64_t region = SeededScheduler::new_region();
    const uint64_t seed = keyed_ ? Rng::derive(attempt_seed, static_cast<uint64_t>(c) + 1) : 0;
    spawn_([this, &broker, request, meta, attempt, seed, region] { deliver(broker, *request, meta, *attempt, seed, region); },
           region, footprint({resource::push(meta.push_id)}));
  }
}

void Network::deliver(impl::Broker& broker, const nlohmann::json& request, const AttemptMeta& meta,
                      Attempt& attempt, uint64_t seed, uint64_t region) {
  Rng own(seed);
  Rng& rng = keyed_ ? own : rng_;
  const uint64_t request_id = ++next_request_;
  stats_.deliveries++;
  const int64_t there_ms = latency_ms(rng);
  SeededScheduler::label_next_step(region, Footprint());  // the first leg ends here; what follows is the broker's
  clock_.sleep_for(there_ms);
  history::RequestRecord record;
  record.request = request_id;
  record.step = meta.step;
  record.broker = broker.id();
  record.producer = meta.producer;
  record.push_id = meta.push_id;
  record.attempt = meta.attempt;
  record.response_received = false;
  if (rng.chance_ppm(config_.loss_request_ppm)) {
    stats_.requests_lost++;
    record.delivered = false;
    history_.requests.push_back(std::move(record));
    trace_.begin(clock_.now_ms(), "lost-request").field("req", static_cast<int64_t>(request_id)).end();
    return;
  }
  trace_.begin(clock_.now_ms(), "deliver")
      .field("req", static_cast<int64_t>(request_id))
      .field("push", static_cast<int64_t>(meta.push_id))
      .field("attempt", meta.attempt)
      .field("b", broker.id())
      .end();
  impl::PushResponse response;
  // Storage-clock bounds of every commit this delivery can make (client-visible).
  record.received_at_ms = kEpochUnixMs + clock_.now_ms();
  try {
    response = broker.push(request, request_id);
    record.answered_at_ms = kEpochUnixMs + clock_.now_ms();
  } catch (const impl::BrokerLost&) {
    record.answered_at_ms = kEpochUnixMs + clock_.now_ms();
    // The broker died with this request in flight: it answers nothing.
    stats_.crashed++;
    record.lost_in_crash = true;
    // The items it carried, as the broker would have seen them: a follower
    // record may name this request, and checkers must find its keys.
    const auto validated = impl::validate_push_request(request);
    if (const auto* items = std::get_if<std::vector<impl::PushItem>>(&validated)) {
      for (const impl::PushItem& item : *items) {
        record.items.push_back({std::string(item.queue), std::string(item.partition), std::string(item.transaction_id)});
      }
    }
    history_.requests.push_back(std::move(record));
    return;
  }
  record.rejected = response.rejected;
  record.error = response.error;
  Trace& t = trace_.begin(clock_.now_ms(), "respond").field("req", static_cast<int64_t>(request_id));
  if (response.rejected) t.field("rejected", response.error);
  record.items.reserve(response.items.size());
  record.responses.reserve(response.items.size());
  for (const impl::ItemResponse& r : response.items) {
    record.items.push_back({r.queue, r.partition, r.transaction_id});
    record.responses.push_back({impl::status_name(r.status), r.message_id, r.transaction_id, r.queue});
    t.field(impl::status_name(r.status), r.message_id);
  }
  t.end();
  const size_t index = history_.requests.size();
  history_.requests.push_back(std::move(record));

  // The response's last leg touches only this push's attempt (its slot, its
  // producer's wait; the loss draw is this delivery's own generator's): the
  // schedule search may commute it with steps that touch neither.
  const int64_t back_ms = latency_ms(rng);
  SeededScheduler::label_rest_of_fiber(footprint({resource::push(meta.push_id)}), kAnswerRegion);
  clock_.sleep_for(back_ms);
  if (rng.chance_ppm(config_.loss_response_ppm)) {
    stats_.responses_lost++;
    trace_.begin(clock_.now_ms(), "lost-response").field("req", static_cast<int64_t>(request_id)).end();
    return;
  }
  if (!attempt.wakeup.waiting) {
    stats_.late_responses++;
    trace_.begin(clock_.now_ms(), "late-response").field("req", static_cast<int64_t>(request_id)).end();
    return;
  }
  history_.requests[index].response_received = true;
  attempt.response = std::move(response);
  trace_.begin(clock_.now_ms(), "recv").field("req", static_cast<int64_t>(request_id)).end();
  clock_.wake(attempt.wakeup);
}

}  // namespace qdt::sim
