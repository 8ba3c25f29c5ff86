#pragma once
// qdt explore-schedules FILE: runs one scenario under every distinct
// schedule of its fibers up to a bound (sim/schedule/schedule_search.h), judges every
// run with the checkers replay uses (expectations and every property), and
// reports how many schedules ran, how many alternatives the reduction
// pruned, whether the bound was exhausted, the distinct trace hashes and
// outcomes, and every failure, each written as a scenario file whose
// `world.schedule` lists the failing choices (qdt replay replays it).
// Lives in the qdt executable, beside main.cpp.
#include <cstdint>
#include <string>

#include "impl/variant.h"
#include "sim/campaign/campaign_options.h"

namespace qdt::sim {

struct ExploreSchedulesOptions {
  std::string file;
  uint64_t max_interleavings = 1000;
  bool reduce = true;
  uint64_t estimate_probes = 0;  // --estimate N: Knuth's tree-size estimate from N random probes
  bool as_json = false;
  bool quiet = false;
  std::string out_dir = "reports/out/schedules";  // failing schedules as scenario files
  impl::Variant variant = impl::Variant::none;
  StorageEngineKind engine = StorageEngineKind::sqlite;  // --storage
  std::string pg_url;                                    // --pg-url
};

// The exit code (exit_codes.h): 1 when a schedule failed, 2 for bad input.
int run_explore_schedules(const ExploreSchedulesOptions& options, const WallClock& wall);

}  // namespace qdt::sim
