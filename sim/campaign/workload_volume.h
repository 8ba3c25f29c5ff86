#pragma once
// Volume (docs/semantics.md §10.4): a foreign cache has capacities qdt cannot
// see (blocks of thousands of hashes, memory budgets), so a share of the
// seeds of the profiles that ask (Knobs::volume_pm) end with a request of
// thousands of items to one partition, a long run of pushes inside one
// window, and a repeat of keys of the large request from another broker.
// Drawn from streams of their own: a seed that is not a volume seed
// generates what it always did. Detail of the generator.
#include <cstdint>
#include <nlohmann/json.hpp>

namespace qdt::sim {

// The sizes a volume seed draws from; moderate, so a campaign of a profile
// with volume stays a test that runs in seconds.
struct VolumeShape {
  int64_t large_items_min = 1000, large_items_max = 2000;  // the one large request
  int64_t run_pushes_min = 48, run_pushes_max = 96;        // the run inside one window
  int64_t run_items_max = 8;                               // items per push of the run
};

// Whether `seed` is a volume seed of a profile whose share is `volume_pm` per mille.
bool is_volume_seed(uint64_t seed, int volume_pm);

// The steps a volume seed appends, on queue q0 and one partition, with step
// ids "v0", "v1", ... and brokers below `brokers`.
nlohmann::json volume_steps(uint64_t seed, int brokers, const VolumeShape& shape = {});

}  // namespace qdt::sim
