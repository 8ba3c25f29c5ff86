#pragma once
// The `network` step: the network's latency, loss and duplication changed;
// the fields it leaves out keep their current value. `world.network` is read
// the same way.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "sim/scenario/json_reader.h"
#include "sim/scenario/scenario.h"
#include "sim/world/world_config.h"

namespace qdt::sim {

// The fields a `network` step changes; the others keep their current value.
struct NetworkChange {
  std::optional<std::pair<int64_t, int64_t>> latency_ms;
  std::optional<uint32_t> loss_request_ppm;
  std::optional<uint32_t> loss_response_ppm;
  std::optional<uint32_t> duplicate_ppm;
  void apply(NetworkConfig& config) const;
};

// Reads latency_ms, loss_request, loss_response and duplicate of `n` (at `path`).
void read_network_change(JsonReader& r, const nlohmann::json& n, const std::string& path, NetworkChange& change);

extern const StepKind network_step;

}  // namespace qdt::sim
