#pragma once
// The simulated network between producers and brokers: a request reaches the
// broker after a seeded latency and its response comes back the same way.
// (Loss and duplicated delivery are fault injectors that wrap this seam; they
// arrive with the fault work.)
#include <cstdint>
#include <nlohmann/json.hpp>

#include "impl/broker.h"
#include "sim/rng.h"
#include "sim/trace.h"
#include "sim/virtual_clock.h"
#include "sim/world_config.h"

namespace qdt::sim {

class Network {
 public:
  Network(const NetworkConfig& config, Rng& rng, VirtualClock& clock, Trace& trace)
      : config_(config), rng_(rng), clock_(clock), trace_(trace) {}

  // Called from the producer's fiber; suspends it for both legs.
  impl::PushResponse call(impl::Broker& broker, const nlohmann::json& request, uint64_t request_id);

 private:
  int64_t latency_ms() { return rng_.between(config_.latency_ms_min, config_.latency_ms_max); }
  const NetworkConfig& config_;
  Rng& rng_;
  VirtualClock& clock_;
  Trace& trace_;
};

}  // namespace qdt::sim
