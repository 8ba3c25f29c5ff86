#include "sim/scenario/runner.h"

#include <algorithm>

#include "properties/checkers.h"
#include "properties/diagnosis.h"
#include "sim/scenario/coverage.h"
#include "sim/scenario/history_reach.h"
#include "sim/scenario/run_expectations.h"
#include "sim/scenario/run_metrics.h"
#include "sim/scenario/step_outcomes.h"
#include "sim/scenario/step_runner.h"
#include "sim/world/world.h"

namespace qdt::sim {
namespace {

// Configures the scenario's queues, then runs its steps in order.
void script(const Scenario& scenario, StepRunner& runner) {
  for (const auto& [queue, options] : scenario.queues) runner.world().admin().configure(queue, options);
  for (const Step& step : scenario.steps) runner.run(step);
}

}  // namespace

namespace {

// A step without an id goes by its JSON path ("/steps/1/steps/0"), which no
// id can equal (ids hold no '/').
std::string step_label(const std::string& id) {
  return !id.empty() && id[0] == '#' ? "/steps/" + id.substr(1) : id;
}

}  // namespace

RunOutcome run_scenario(const Scenario& scenario, const RunOptions& options) {
  WorldConfig config = scenario.world;
  config.seed = scenario.seed;
  if (options.cache_enabled) config.cache.enabled = *options.cache_enabled;
  // The command line's --variant wins over the scenario's world.variant.
  if (options.variant != impl::Variant::none) config.variant = options.variant;
  if (options.schedule) config.schedule = *options.schedule;
  config.checked_mode = options.checked_mode;
  config.storage.engine = options.engine;
  const bool learn_steps = config.schedule.mode == ScheduleMode::pct && config.schedule.pct_steps == 0 &&
                           options.schedule_policy == nullptr;
  if (learn_steps) {
    // PCT's k, the run's step count, is learnt from a first run of the same
    // seed under PCT without change points (PctPolicy's bound needs k).
    WorldConfig first = config;
    first.schedule.pct_depth = 1;
    first.schedule.pct_steps = 1;
    World probe(first, false);
    StepRunner probe_runner(probe);
    probe.run([&] { script(scenario, probe_runner); });
    config.schedule.pct_steps = std::max<uint64_t>(probe.scheduler_picks(), 1);
  }
  // Observes the reachability points of this run only (not the probe run
  // above); changes nothing in it.
  RunReach reach;
  World world(config, options.keep_trace_text);
  world.set_schedule_policy(options.schedule_policy);
  StepRunner runner(world);
  world.run([&] { script(scenario, runner); });
  world.finish_history();
  world.history().recorded_outcomes = true;
  world.history().recorded_request_times = true;
  reach.run_ended();
  mark_history_points(world.history());

  RunOutcome outcome;
  RunResult& result = outcome.result;
  check_expectations(scenario, runner.outcomes(), world.history(), world, result.failures);
  for (const properties::Failure& f : properties::check_history(world.history())) {
    result.failures.push_back({"property", f.property, f.step, f.partition, f.detail,
                               properties::likely_cause(world.history(), f.property, f.partition), f.rule, f.event,
                               f.expected, f.actual});
  }
  for (RunFailure& f : result.failures) f.step = step_label(f.step);
  outcome.passed = result.failures.empty();
  if (options.step_responses) {
    for (const auto& [id, response] : runner.outcomes().responses) result.step_responses[step_label(id)] = response;
    for (const auto& [id, response] : runner.outcomes().pushes) {
      result.step_responses[step_label(id)] = response.to_json();
    }
  }
  result.scenario = scenario.name;
  result.file = scenario.file;
  result.seed = scenario.seed;
  result.variant = impl::variant_name(config.variant);
  result.passed = outcome.passed;
  result.trace_hash = world.trace().hash_hex();
  result.metrics = run_metrics(world, runner.outcomes().timeouts, runner.outcomes().retries);
  result.reached = reach.names();
  for (const auto& [name, picks] : reach.first_picks()) result.reached_at_pick[name] = picks;
  result.schedule = world.schedule_report();
  for (const history::FinalRead& read : world.history().final_reads) {
    result.stored[read.queue + "/" + read.partition] = static_cast<int64_t>(read.messages.size());
  }
  if (!result.schedule.is_null() && learn_steps) result.schedule["steps_learnt"] = true;
  outcome.trace_text = world.trace().text();
  outcome.step_times = runner.outcomes().times;
  outcome.history = std::move(world.history());
  return outcome;
}

}  // namespace qdt::sim
