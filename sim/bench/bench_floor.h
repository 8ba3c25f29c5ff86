#pragma once
// The storage floor of qdt bench (sim/cli/bench_command.h): what the mechanism's
// own SQL costs, alone. A run's history (properties/history.h) lists every
// storage transaction in commit order with what it was asked; here they are
// asked again, in that order, of a bare impl::Storage on one in-memory
// connection: no world, no fibers, no network, no recorder, no checked mode,
// no checkers. The time that takes bounds from above what any qdt run of the
// same workload can reach, however fast everything around storage becomes.
//
// The replay is checked against the run: every push must get the verdict it
// got in the run (queued, or the same duplicates), every fetch the same
// answer. A floor whose replay disagrees is not the run's SQL, and says so.
//
// Measurement code, in the qdt executable (and bench_floor_test) beside
// bench_workloads.cpp: the wall clock is read here (around each replayed
// call and each history's checkers only), never inside a world, so no trace
// or result depends on it.
#include <cstdint>
#include <string>

#include "impl/storage/sqlite/connection.h"
#include "impl/storage/sqlite/storage.h"
#include "properties/history.h"

namespace qdt::sim {

struct FloorReplay {
  double wall_s = 0;          // the replayed transactions only
  uint64_t transactions = 0;  // storage calls replayed
  uint64_t pushes = 0;
  uint64_t items = 0;         // frames in the replayed pushes
  // Replayed answers that differ from the run's (and, for a campaign, seeds
  // whose run failed a property: the floor measures the reference's SQL).
  uint64_t disagreements = 0;
  double checkers_wall_s = 0;  // campaign_storage_floor: every checker over the same histories
  double generation_wall_s = 0;  // campaign_storage_floor: generating and loading the seeds' scenarios
};

// One shared-cache in-memory database and its connection (checked mode
// off, no gate), kept for every replay as a campaign worker keeps its pooled
// one: its statements are prepared by an untimed first replay of `warm_up`,
// and each replay starts from emptied tables (untimed). The storage clock is
// driven from the events' now_ms.
class StorageFloor {
 public:
  explicit StorageFloor(const history::History& warm_up);
  // Replays `history`'s successful storage transactions in commit order; adds to `out`.
  void replay(const history::History& history, FloorReplay& out);

 private:
  impl::ManualClock clock_;
  impl::Storage storage_;
};

// The floor of a campaign: seeds [first_seed, first_seed + seeds) of
// `profile` generated and run as `qdt check` runs them (checked mode on),
// each run's history then replayed alone, and judged again by every
// property checker (timed apart: checkers_wall_s), which a campaign must run.
FloorReplay campaign_storage_floor(const std::string& profile, uint64_t first_seed, uint64_t seeds);

}  // namespace qdt::sim
