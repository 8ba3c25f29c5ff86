#pragma once
// Shrinking a campaign failure: greedy reduction of a scenario document —
// fewer steps, fewer items, no retries, broker 0, shorter waits, no network
// faults, one broker — keeping each change while the scenario still fails
// the same property under the same variant. Bounded by a number of replays.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "impl/variant.h"
#include "sim/world/world_config.h"
#include "sim/scenario/run_result.h"

namespace qdt::sim {

struct Shrunk {
  nlohmann::json scenario;
  std::optional<RunResult> result;  // of the shrunk scenario, under the same variant; none when it does not load
  int runs = 0;           // replays spent shrinking
};

// Greedy reduction, bounded by `max_runs` replays; `signature` is the
// failure_signature (campaign.h) the result must keep.
Shrunk shrink(const nlohmann::json& scenario, impl::Variant variant, const std::string& signature,
              int max_runs = 3000, StorageEngineKind engine = StorageEngineKind::sqlite);

}  // namespace qdt::sim
