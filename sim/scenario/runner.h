#pragma once
// Runs one loaded scenario in a fresh world: the steps, then the scenario's
// expectations, then every property checker over the recorded history.
// Produces the result of docs/semantics.md §4 (sim/scenario/run_result.h).
#include <nlohmann/json.hpp>
#include <map>
#include <optional>
#include <string>

#include "impl/variant.h"
#include "properties/history.h"
#include "sim/scenario/run_result.h"
#include "sim/scenario/scenario.h"
#include "sim/schedule/scheduler.h"

namespace qdt::sim {

struct RunOptions {
  std::optional<bool> cache_enabled;  // --cache on|off overrides the world
  bool keep_trace_text = false;       // --trace FILE
  impl::Variant variant = impl::Variant::none;  // --variant NAME (docs/semantics.md §7)
  std::optional<ScheduleConfig> schedule;       // --schedule overrides world.schedule
  // The schedule search's policy (sim/schedule/schedule_search.h), over both.
  SchedulePolicy* schedule_policy = nullptr;
  bool checked_mode = true;  // false: --unchecked (throughput figures only)
  // --storage: the engine the world runs on (sim/scenario/engine_support.h says
  // what PostgreSQL refuses; the caller asks it first).
  StorageEngineKind engine = StorageEngineKind::sqlite;
  // false: the result's "steps" is empty. A campaign reads none of it, and
  // building every push's response as JSON is not free.
  bool step_responses = true;
};

// When a step began and ended, in virtual ms since the run began (the world
// clock, without kEpochUnixMs); a push ends when its producer stops waiting.
struct StepTime {
  int64_t started_ms = 0;
  int64_t ended_ms = 0;
};

struct RunOutcome {
  bool passed = false;
  RunResult result;
  std::string trace_text;  // only with keep_trace_text
  history::History history;
  std::map<std::string, StepTime> step_times;  // by Step::path, every step run (children included)
};

RunOutcome run_scenario(const Scenario& scenario, const RunOptions& options);

}  // namespace qdt::sim
