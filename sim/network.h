#pragma once
// The simulated network between producers and brokers. Each delivery of a
// request is its own fiber: it reaches the broker after a seeded latency and
// its response comes back the same way. Faults wrap this seam: a request may
// be lost on the way (the broker never sees it), a response may be lost after
// the broker committed (the producer times out and retries while the first
// attempt has landed), and a request may be delivered twice. Probabilities
// are integer parts per million from the world's network settings, which the
// `network` step may change mid-run.
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "impl/broker.h"
#include "properties/history.h"
#include "sim/rng.h"
#include "sim/trace.h"
#include "sim/virtual_clock.h"
#include "sim/world_config.h"

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
  using Spawn = std::function<void(std::function<void()>)>;
  Network(const NetworkConfig& config, Rng& rng, VirtualClock& clock, Trace& trace, history::History& history,
          Spawn spawn_detached)
      : config_(config), rng_(rng), clock_(clock), trace_(trace), history_(history), spawn_(std::move(spawn_detached)) {}

  // Starts the deliveries of one attempt and returns at once; the producer
  // then waits on `attempt->wakeup`.
  void send(impl::Broker& broker, std::shared_ptr<const nlohmann::json> request, const AttemptMeta& meta,
            std::shared_ptr<Attempt> attempt);

  const NetworkStats& stats() const { return stats_; }

 private:
  void deliver(impl::Broker& broker, const nlohmann::json& request, const AttemptMeta& meta, Attempt& attempt);
  int64_t latency_ms() { return rng_.between(config_.latency_ms_min, config_.latency_ms_max); }

  const NetworkConfig& config_;
  Rng& rng_;
  VirtualClock& clock_;
  Trace& trace_;
  history::History& history_;
  Spawn spawn_;
  uint64_t next_request_ = 0;
  NetworkStats stats_;
};

}  // namespace qdt::sim
