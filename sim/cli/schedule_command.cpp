#include "sim/cli/schedule_command.h"

#include <filesystem>
#include <iostream>

#include "sim/base/file_name.h"
#include "sim/base/json_input.h"
#include "sim/base/output_file.h"
#include "sim/cli/exit_codes.h"
#include "sim/base/shell_word.h"
#include "sim/scenario/replay_line.h"
#include "sim/scenario/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/schedule/schedule_search.h"
#include "sim/scenario/engine_support.h"
#include "sim/world/pg_process.h"

namespace qdt::sim {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// What a run ended with, without ids (they come from generators whose draw
// order follows the schedule): each step's statuses, read counts, verdict.
std::string outcome_of(const RunResult& result) {
  std::string out = result.passed ? "pass" : "fail";
  for (const auto& [id, r] : result.step_responses) {
    out += " " + id + "=";
    if (r.is_array()) {
      for (size_t i = 0; i < r.size(); ++i) out += (i ? "," : "") + r[i].value("status", std::string("?"));
    } else if (r.contains("count")) {
      out += "count:" + r["count"].dump();
    } else if (r.contains("status")) {
      out += r["status"].get<std::string>();
    } else {
      out += "rejected";
    }
  }
  return out;
}

std::string first_failure(const RunResult& result) {
  if (result.failures.empty()) return "";
  const RunFailure& f = result.failures[0];
  return f.signature() + " at step " + f.step + ": " + f.detail;
}

// The first choices of a schedule, for a line a person reads (the file has them all).
std::string choices_text(const std::vector<uint64_t>& choices) {
  constexpr size_t kShown = 40;
  std::string out;
  for (size_t i = 0; i < choices.size() && i < kShown; ++i) out += (i ? "," : "") + std::to_string(choices[i]);
  if (choices.size() > kShown) out += ",... " + std::to_string(choices.size()) + " in all";
  return out;
}

}  // namespace

int run_explore_schedules(const ExploreSchedulesOptions& o, const WallClock& wall) {
  LoadResult loaded = load_scenario_file(o.file);
  std::string reason;
  const std::optional<std::string> text = loaded.scenario ? read_input_file(o.file, reason) : std::nullopt;
  if (!loaded.scenario || !text) {
    for (const LoadError& e : loaded.errors) std::cerr << "error: " << e.to_string() << "\n";
    if (loaded.scenario) std::cerr << "error: " << o.file << ": " << reason << "\n";
    std::cerr << "nothing was run (exit 2)\n";
    return kExitBadInput;
  }
  const Scenario& scenario = *loaded.scenario;
  json doc = *parse_json_input(*text).doc;  // the loader accepted this text
  if (const auto reason = engine_refuses(o.engine, scenario, o.variant)) {
    std::cerr << "error: " << o.file << ": /: PostgreSQL cannot run it: " << *reason << "\nnothing was run (exit 2)\n";
    return kExitBadInput;
  }
  if (o.engine == StorageEngineKind::postgres) {
    if (const auto problem = start_pg_process_problem({o.pg_url, 1})) {
      std::cerr << "error: " << *problem << "\nnothing was run (exit 2)\n";
      return kExitBadInput;
    }
  }
  if (!o.quiet) {
    std::cerr << "qdt explore-schedules " << scenario.name << ": at most " << o.max_interleavings
              << " schedules, reduction " << (o.reduce ? "on" : "off") << ", variant "
              << impl::variant_name(o.variant) << (o.engine == StorageEngineKind::postgres ? ", storage postgres" : "")
              << "\n";
  }

  RunOptions run_options;
  run_options.variant = o.variant;
  run_options.engine = o.engine;
  const ScheduleRun run = [&](ChoicePolicy& policy) {
    RunOptions options = run_options;
    options.schedule_policy = &policy;
    const RunOutcome outcome = run_scenario(scenario, options);
    ScheduleVerdict v;
    v.passed = outcome.passed;
    v.trace_hash = outcome.result.trace_hash;
    v.outcome = outcome_of(outcome.result);
    v.detail = first_failure(outcome.result);
    return v;
  };
  ScheduleSearchOptions search;
  search.max_schedules = o.max_interleavings;
  search.reduce = o.reduce;
  const double started = wall();
  double last_progress = started;
  const auto progress = [&](const ScheduleSearchReport& r) {
    if (o.quiet || wall() - last_progress < 2.0) return;
    last_progress = wall();
    const double rate = static_cast<double>(r.runs) / std::max(last_progress - started, 1e-9);
    std::cerr << "[" << r.runs << "/" << o.max_interleavings << "] " << r.schedules << " schedules, " << r.pruned
              << " pruned, " << r.redundant_runs << " redundant, tree depth " << r.depth_max << ", " << r.failed_runs
              << " failing, " << static_cast<uint64_t>(rate) << " runs/s\n";
  };
  ScheduleSearchReport report;
  try {
    report = search_schedules(run, search, progress);
  } catch (const std::logic_error& e) {
    std::cerr << "error: " << o.file << ": " << e.what() << "\n";
    return kExitBadInput;
  }

  json estimate;
  if (o.estimate_probes > 0) {
    const TreeEstimate e = estimate_schedules(run, o.estimate_probes, scenario.seed);
    estimate = {{"probes", e.probes}, {"schedules", e.schedules}, {"schedules_min", e.schedules_min},
                {"schedules_max", e.schedules_max}, {"choice_points_max", e.choice_points_max}};
  }

  // Every failure kept becomes a scenario that replays it: the same world
  // with the failing choices as its schedule.
  json failures = json::array();
  std::error_code ec;
  if (!report.failures.empty()) fs::create_directories(o.out_dir, ec);
  for (const ScheduleFailure& f : report.failures) {
    json failing = doc;
    ScheduleConfig schedule;
    schedule.mode = ScheduleMode::choices;
    schedule.choices = f.choices;
    failing["world"]["schedule"] = schedule.to_json();
    failing["name"] = scenario.name + "-schedule-" + std::to_string(f.run);
    const fs::path path = fs::path(o.out_dir) / (file_name_part(failing["name"].get<std::string>()) + ".json");
    std::string write_error;
    if (!write_output_file(path.string(), failing.dump(2) + "\n", &write_error)) {
      std::cerr << "error: --out " << write_error << "\n";
      return kExitBadInput;
    }
    const std::string replay = replay_command({path.string(), o.variant, "", o.engine});
    failures.push_back({{"run", f.run}, {"choices", f.choices}, {"detail", f.verdict.detail},
                        {"trace_hash", f.verdict.trace_hash}, {"file", path.string()}, {"replay", replay}});
  }
  json first_path = json::array();
  for (const auto& p : report.first_path) {
    first_path.push_back({{"ready", p.ready}, {"chosen", p.chosen}, {"footprint", p.chosen_footprint.to_string()}});
  }
  json outcomes = json::object();
  for (const auto& [outcome, runs] : report.outcomes) outcomes[outcome] = runs;
  const json summary = {{"scenario", scenario.name},
                        {"file", o.file},
                        {"seed", scenario.seed},
                        {"variant", impl::variant_name(o.variant)},
                        {"max_interleavings", o.max_interleavings},
                        {"reduction", o.reduce},
                        {"runs", report.runs},
                        {"schedules", report.schedules},
                        {"redundant_runs", report.redundant_runs},
                        {"pruned", report.pruned},
                        {"analysis_fallbacks", report.analysis_fallbacks},
                        {"exhausted", report.exhausted},
                        {"choice_points_max", report.choice_points_max},
                        {"depth_max", report.depth_max},
                        {"distinct_trace_hashes", report.trace_hashes.size()},
                        {"distinct_outcomes", report.outcomes.size()},
                        {"outcomes", outcomes},
                        {"failed_runs", report.failed_runs},
                        {"failures", failures},
                        {"first_path", first_path},
                        {"estimate", estimate},
                        {"wall_s", wall() - started}};
  if (o.as_json) {
    std::cout << summary.dump(2) << "\n";
  } else {
    std::cout << (report.failed_runs ? "FAIL " : "PASS ") << scenario.name << ": " << report.runs << " runs ("
              << report.schedules << " distinct schedules, " << report.redundant_runs << " redundant), "
              << (report.exhausted ? "exhausted: every schedule up to the reduction was run"
                                   : "bound hit: --max-interleavings " + std::to_string(o.max_interleavings) +
                                         " reached before the tree was exhausted")
              << "\n  reduction " << (o.reduce ? "on (DPOR, sleep sets)" : "off") << ": " << report.pruned
              << " alternatives pruned\n  choice points per run: up to " << report.choice_points_max
              << "; distinct trace hashes " << report.trace_hashes.size() << "; distinct outcomes "
              << report.outcomes.size() << "\n  failing runs: " << report.failed_runs << "\n";
    if (!estimate.is_null()) {
      std::cout << "  estimated schedules without reduction (Knuth, " << estimate["probes"] << " probes): "
                << estimate["schedules"].get<double>() << " (one probe's product from "
                << estimate["schedules_min"].get<double>() << " to " << estimate["schedules_max"].get<double>()
                << ")\n";
    }
    for (const json& f : failures) {
      std::cout << "  run " << f["run"] << " (choices " << choices_text(f["choices"].get<std::vector<uint64_t>>())
                << "): " << f["detail"].get<std::string>() << "\n"
                << command_below("  ", "replay it", f["replay"].get<std::string>());
    }
  }
  return report.failed_runs ? kExitFailed : kExitOk;
}

}  // namespace qdt::sim
