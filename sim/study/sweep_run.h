#pragma once
// Running a sweep (qdt explore): every (point, seed) run through
// run_document, in one process or `jobs` forked workers. Run u (point u /
// seeds, seed first_seed + u % seeds) falls to worker u % jobs, and the
// workers' results are merged by u, so the document is the same for any jobs
// (wall_s aside). Called from the main fiber of the command line's thread.
// Writes nothing: the caller renders the document (reports/sweep_report.h).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/campaign/campaign_options.h"
#include "sim/scenario/scenario.h"
#include "sim/study/sweep.h"
#include "sim/world/world_config.h"

namespace qdt::sim {

struct SweepRunOptions {
  uint64_t jobs = 1;
  bool quiet = false;
  std::string command;  // how the sweep was invoked, recorded in the document
  std::string commit;   // "" when unknown
  // --storage (engine_refusals already asked); PostgreSQL's server started.
  StorageEngineKind engine = StorageEngineKind::sqlite;
};

struct SweepRunResult {
  // {"name","description","command","commit"?,"base","variant","expectations","seeds","first_seed",
  //  "metrics":[{"name","unit"}],"knobs":[{"path","values","unit"}],"points":[...],
  //  "runs","failures","sweep","wall_s","question"?,"conclusions"?}
  nlohmann::json document;
  std::vector<LoadError> errors;  // a run that did not load, or a worker that failed: nothing to write
  bool all_passed = false;
};

// `sweep` has passed check_points.
SweepRunResult run_sweep(const Sweep& sweep, const SweepRunOptions& options, const WallClock& wall);

// "ms", "s", "bytes", "probability" or "count", from a metric or knob name.
std::string unit_of(const std::string& name);

}  // namespace qdt::sim
