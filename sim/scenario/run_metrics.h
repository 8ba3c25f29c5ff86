#pragma once
// The `metrics` object of a run's result (docs/semantics.md §4): counts read from the
// finished world (its history, network, brokers' caches and storage), plus the
// timeouts and retries the runner counted over every push it executed.
#include <cstdint>
#include <nlohmann/json.hpp>

#include "sim/world/world.h"

namespace qdt::sim {

nlohmann::json run_metrics(World& world, int64_t timeouts, int64_t retries);

}  // namespace qdt::sim
