#pragma once
// The knobs of each campaign profile (docs/semantics.md §4): what a profile makes likely —
// per-mille chances of each kind of step, key and partition counts, windows,
// faults — drawn once per seed. sim/campaign/workload.cpp generates the scenario from
// them. Detail of the generator; not part of qdt's interface.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/rng.h"

namespace qdt::sim {

// Knobs of one profile. Probabilities are per mille, integers.
struct Knobs {
  int keys = 4;
  int partitions = 2;
  int brokers_max = 2;
  int steps_min = 6;
  int steps_max = 16;
  std::vector<int64_t> windows_seconds = {60, 3600};
  int loss_request_pm = 0;
  int loss_response_pm = 0;
  int duplicate_pm = 0;
  int parallel_pm = 250;
  int advance_pm = 200;
  int configure_pm = 0;
  int retention_pm = 0;
  int delete_pm = 0;
  int storage_fail_pm = 0;
  int skew_pm = 0;
  int crash_pm = 0;
  int crash_storage_pm = 0;
  int synchronous_off_pm = 0;  // of file-storage seeds: synchronous off, so a power loss empties storage
  // Per mille of steps drawn as a cache command racing flushes (cache_race)
  // and as a key's life across the purge floor (lifecycle).
  int cache_race_pm = 0;
  int lifecycle_pm = 0;  // crash_storage (file storage, synchronous full), alone or racing pushes
  int ack_pm = 50;         // acks: mostly of pushed keys, from several consumer groups
  int read_pm = 0;
  int completed_retention_pm = 0;  // configure completedRetentionSeconds (either side of the 900 s floor)
  int contention_pm = 0;   // parallel: pushes from >= 2 brokers on one partition racing a retention pass
  // storage_fail draws its target among every storage transaction kind, its
  // statement in 0..kFaultStatementsMax and either code.
  int evict_pm = 10;       // evict_cache on a random broker
  int kill_switch_pm = 0;  // cache off / on
  int64_t cache_budget_bytes = 0;  // 0: the default budget
  int64_t decline_cooldown_flushes = 0;  // 0: the default cooldown
  int brokers_min = 1;
  int retry_attempts_max = 3;
  bool zero_latency = false;
  int64_t retention_seconds = 0;
  int64_t purge_batch_max = 1000;
  bool bundles = false;  // world.bundles: a request's partitions in one transaction (PostgreSQL)
  // Per mille of seeds with fusion off: a broker's flushes of one partition
  // then run side by side, so a cache reset can meet a hydration read.
  int fusion_off_pm = 0;
  // Per mille of seeds that end with volume (workload_volume.h): thousands
  // of items to one partition, a long run inside one window.
  int volume_pm = 0;
};

// The knobs of `profile` for one seed (some profiles draw a few with `rng`).
Knobs knobs_for(const std::string& profile, Rng& rng);

}  // namespace qdt::sim
