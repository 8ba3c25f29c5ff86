#pragma once
// The simulated network between producers and brokers. Each delivery of a
// request is its own fiber: it reaches the broker after a seeded latency and
// its response comes back the same way. Faults wrap this seam: a request may
// be lost on the way (the broker never sees it), a response may be lost after
// the broker committed (the producer times out and retries while the first
// attempt has landed), and a request may be delivered twice. Probabilities
// are integer parts per million from the world's network settings, which the
// `network` step may change mid-run.
//
// Draws come in one of two ways (World::run picks). Ordered, as random,
// pct and fork schedules have always drawn (their traces keep their
// hashes): from the network's one generator, in the order fibers run.
// Keyed, for a `choices` schedule and the schedule search that writes them:
// every draw of an attempt (duplication, each delivery's latencies and
// losses) comes from a generator of its own, seeded by the network's seed,
// the producer's name, the producer's push number and the attempt (and the
// copy, for a delivery): a function of the seed and the push, not of the
// order in which fibers ran. So concurrent producers' sends and their
// deliveries' first legs touch nothing in common and commute (their
// footprints say so; ordered draws add resource::ordered_draws).
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "impl/broker/broker.h"
#include "properties/history.h"
#include "sim/schedule/footprint.h"
#include "sim/base/rng.h"
#include "sim/base/trace.h"
#include "sim/schedule/virtual_clock.h"
#include "sim/world/world_config.h"

namespace qdt::sim {

// What the producer and the deliveries of one attempt share.
struct Attempt {
  VirtualClock::Wakeup wakeup;                   // the producer waits on it, with its timeout
  std::optional<impl::PushResponse> response;   // the first response that reached the producer
};

struct AttemptMeta {
  std::string step;
  std::string producer;
  uint64_t push_id = 0;
  uint64_t producer_push = 0;  // the producer's own count of its pushes, from 1
  uint32_t attempt = 0;
};

struct NetworkStats {
  uint64_t deliveries = 0;
  uint64_t requests_lost = 0;
  uint64_t responses_lost = 0;
  uint64_t duplicated = 0;
  uint64_t late_responses = 0;
  uint64_t crashed = 0;  // deliveries lost in a broker crash
};

class Network {
 public:
  // Starts a detached fiber whose first step is labelled (SeededScheduler::label_first_step).
  using Spawn = std::function<void(std::function<void()>, uint64_t region, const Footprint& first)>;
  // `rng`: the ordered draws' generator; `keyed_seed`: the keyed draws' root.
  Network(const NetworkConfig& config, Rng& rng, uint64_t keyed_seed, VirtualClock& clock, Trace& trace,
          history::History& history, Spawn spawn_detached)
      : config_(config),
        rng_(rng),
        seed_(keyed_seed),
        clock_(clock),
        trace_(trace),
        history_(history),
        spawn_(std::move(spawn_detached)) {}

  // Before the run: keyed draws (true) or ordered (false, the default).
  void set_keyed_draws(bool keyed) { keyed_ = keyed; }
  bool keyed_draws() const { return keyed_; }
  // `resources`, plus the shared generator when draws are ordered.
  Footprint footprint(std::initializer_list<uint64_t> resources) const;

  // Starts the deliveries of one attempt and returns at once; the producer
  // then waits on `attempt->wakeup`.
  void send(impl::Broker& broker, std::shared_ptr<const nlohmann::json> request, const AttemptMeta& meta,
            std::shared_ptr<Attempt> attempt);

  const NetworkStats& stats() const { return stats_; }

  // The region of a delivery's step from the broker waking it with its
  // answer (impl::WaitPort::Wake::answered: a fused request whose frames
  // another request flushed) to its response's last leg: it collects its
  // answer and records it, touching nothing shared (the wait port labels it,
  // deliver() closes it; a step that suspends anywhere else stays unknown).
  static constexpr uint64_t kAnswerRegion = ~uint64_t{0};

 private:
  void deliver(impl::Broker& broker, const nlohmann::json& request, const AttemptMeta& meta, Attempt& attempt,
               uint64_t seed, uint64_t region);
  int64_t latency_ms(Rng& rng) const { return rng.between(config_.latency_ms_min, config_.latency_ms_max); }

  const NetworkConfig& config_;
  Rng& rng_;
  const uint64_t seed_;
  bool keyed_ = false;
  VirtualClock& clock_;
  Trace& trace_;
  history::History& history_;
  Spawn spawn_;
  uint64_t next_request_ = 0;
  NetworkStats stats_;
};

}  // namespace qdt::sim
