#pragma once
// The in-process workloads of qdt bench (sim/cli/bench_command.h), each timed on
// the wall clock. Measurement code: the wall clock is read here and only
// here, never inside a world, so no trace or result depends on it.
//
//   run_push_workload    the whole simulated push path (producers -> network
//                        -> broker -> storage, seeded scheduler, virtual time)
//                        and then every checker over the history;
//   run_window_workload  one broker pushing one fresh key at a time into one
//                        partition whose window already holds `rows` sidecar
//                        rows, straight to in-memory storage (no world): what
//                        the dedup cache saves, with and without checked mode.
// Lives in the qdt executable, beside bench_command.cpp.
#include <cstdint>
#include <memory>

#include "properties/history.h"
#include "sim/world/world_config.h"

namespace qdt::sim {

struct PushWorkload {
  int producers = 8;
  int requests = 1000;  // per producer
  int batch = 1;        // items per request, all for one partition
  int partitions = 8;   // requests go round-robin over them
  int64_t window_seconds = 3600;
  bool cache = true;
  bool checked_mode = true;
  uint64_t seed = 1;
  bool keep_history = false;  // PushFigures::history (the storage floor replays it)
  // PostgreSQL needs start_pg_process() first (sim/world/pg_process.h).
  StorageEngineKind engine = StorageEngineKind::sqlite;
};

struct PushFigures {
  uint64_t items = 0;
  uint64_t failures = 0;   // property failures (a bench over a broken run is void)
  double run_wall_s = 0;   // the world's run, history finished
  double check_wall_s = 0; // every checker over the history
  double virtual_s = 0;    // virtual time the run took
  history::History history;  // only with PushWorkload::keep_history
};

PushFigures run_push_workload(const PushWorkload& workload);

struct WindowWorkload {
  int64_t rows = 10'000;  // sidecar rows in the window before the timed pushes
  uint64_t pushes = 1000; // timed pushes of one fresh key each
  bool cache = true;
  bool checked_mode = false;
};

struct WindowFigures {
  double pushes_per_s = 0;
  double rows_scanned_per_push = 0;
  uint64_t cache_hashes = 0;          // resident hashes after the timed pushes
  double cache_bytes_per_hash = 0;    // the cache's own accounting (DedupCache::Stats::bytes)
  double heap_bytes_per_hash = 0;     // malloc's in-use bytes the cache added (hydration + pushes)
};

WindowFigures run_window_workload(const WindowWorkload& workload);

// The same workload kept alive between timed rounds, so that rounds of
// several workloads can alternate (a slow spell of the shared machine then
// falls on all of them alike). Construction pre-fills and warms up.
class WindowRun {
 public:
  explicit WindowRun(const WindowWorkload& workload);
  ~WindowRun();
  WindowRun(const WindowRun&) = delete;
  WindowRun& operator=(const WindowRun&) = delete;
  // One timed round of `pushes` fresh keys: pushes per wall second.
  double timed_round(uint64_t pushes);
  // The figures so far: pushes_per_s is the median round's.
  WindowFigures figures();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace qdt::sim
