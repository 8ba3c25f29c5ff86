#include "sim/cli/schedule_cli.h"

#include "sim/cli/cli_checks.h"
#include "sim/schedule/pct_policy.h"

namespace qdt::sim {

void add_schedule_flags(CLI::App& command, ScheduleFlags& flags) {
  command
      .add_option("--schedule", flags.mode,
                  "How ready fibers are picked: random (uniform with the seed, the default) or pct (Probabilistic "
                  "Concurrency Testing: random priorities, pct-depth - 1 priority change points; a bug of depth d "
                  "<= D is found by one run with probability >= 1/(n*k^(d-1)) for n fibers and k steps). Overrides "
                  "world.schedule")
      ->check(NameIn({"random", "pct"}, "schedule"));
  flags.depth_option =
      command.add_option("--pct-depth", flags.pct_depth, "PCT's depth D: D - 1 change points")
          ->check(WholeIn(1, PctPolicy::kDepthMax));
  flags.steps_option =
      command
          .add_option("--pct-steps", flags.pct_steps,
                      "PCT's k: change points are drawn from steps 1..K (0: learnt from a first run of each scenario, "
                      "its scheduler picks)")
          ->check(WholeIn(0, ScheduleConfig::kPctStepsMax));
}

std::optional<ScheduleConfig> schedule_override(const ScheduleFlags& flags, std::string& error) {
  const bool pct_knobs = flags.depth_option->count() > 0 || flags.steps_option->count() > 0;
  if (pct_knobs && flags.mode != "pct") {
    error = "--pct-depth and --pct-steps need --schedule pct";
    return std::nullopt;
  }
  if (flags.mode.empty()) return std::nullopt;
  ScheduleConfig c;
  c.mode = flags.mode == "pct" ? ScheduleMode::pct : ScheduleMode::random;
  c.pct_depth = flags.pct_depth;
  c.pct_steps = flags.pct_steps;
  return c;
}

std::string schedule_flags_text(const std::optional<ScheduleConfig>& schedule) {
  if (!schedule) return "";
  std::string out = std::string(" --schedule ") + schedule_mode_name(schedule->mode);
  if (schedule->mode == ScheduleMode::pct) {
    out += " --pct-depth " + std::to_string(schedule->pct_depth);
    if (schedule->pct_steps != 0) out += " --pct-steps " + std::to_string(schedule->pct_steps);
  }
  return out;
}

CLI::App* add_explore_schedules(CLI::App& app, ExploreSchedulesOptions& o, std::string& variant_name,
                                const std::vector<std::string>& variant_choices) {
  CLI::App* cmd = app.add_subcommand(
      "explore-schedules",
      "Run one scenario under every distinct schedule of its fibers (depth-first over the choice points, picks "
      "with two or more ready fibers), up to a bound, skipping schedules that only reorder independent steps "
      "(sleep sets over declared footprints); judge each run as replay does. Exit 1 when a schedule fails (each "
      "written to --out as a scenario with its choices as world.schedule), 2 for bad input");
  cmd->add_option("file", o.file, "Scenario file (JSON)")->required();
  cmd->add_option("--max-interleavings", o.max_interleavings,
                  "At most this many runs; the report says whether the tree was exhausted first")
      ->check(WholeIn(1, 100'000'000));
  cmd->add_flag("--no-reduction", [&o](int64_t) { o.reduce = false; },
                "Run every schedule, also those equivalent by commuting independent steps");
  cmd->add_option("--estimate", o.estimate_probes,
                  "Also estimate the number of schedules (Knuth's estimator over N seeded random probes: how big "
                  "the tree is when the bound cannot exhaust it)")
      ->check(WholeIn(0, 1'000'000));
  cmd->add_flag("--json", o.as_json, "Print the report as JSON");
  cmd->add_flag("--quiet", o.quiet, "No progress on stderr");
  cmd->add_option("--out", o.out_dir, "Where failing schedules are written")
      ->check(OutputFolder());
  cmd->add_option("--variant", variant_name, "Run a design variant of the implementation (docs/semantics.md §7)")
      ->check(NameIn(variant_choices, "variant"));
  return cmd;
}

}  // namespace qdt::sim
