#include "sim/cli/bench_command.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "reports/gnuplot.h"
#include "sim/base/output_file.h"
#include "sim/bench/bench_context.h"
#include "sim/bench/bench_engines.h"
#include "sim/bench/bench_floor.h"
#include "sim/bench/bench_items.h"
#include "sim/bench/bench_machine.h"
#include "sim/bench/bench_report.h"
#include "sim/bench/bench_workloads.h"
#include "sim/cli/bench_cache.h"
#include "sim/cli/bench_campaigns.h"
#include "sim/campaign/workload.h"
#include "sim/cli/cli_checks.h"
#include "sim/cli/exit_codes.h"
#include "sim/world/cache_module_choice.h"
#include "sim/world/pg_process.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

// What the mechanism's own SQL costs alone (sim/bench/bench_floor.h): the runs of
// targets 1 and 2 replayed transaction by transaction into a bare storage.
// Each rate is a ceiling: no qdt run of that workload can go faster, however
// cheap the world, the network and the checkers become.
void floor_group(Bench& b) {
  const std::string cmd = b.self_command("floor");
  for (const int batch : {1, 10}) {
    PushWorkload w;
    w.batch = batch;
    w.requests = (b.options.quick ? 100 : 1000) / (batch == 1 ? 1 : 4);
    w.checked_mode = false;
    w.keep_history = true;
    const std::string name = "batch" + std::to_string(batch);
    b.progress("floor: items " + name + " run, then its storage transactions replayed alone");
    const PushFigures run = run_push_workload(w);
    FloorReplay floor;
    StorageFloor(run.history).replay(run.history, floor);
    if (floor.disagreements > 0 || floor.items != run.items) {
      std::cerr << "[bench] the storage floor's replay of items " << name << " disagreed with the run\n";
      b.void_run = true;
    }
    b.add(bench_figure("floor_items_per_s." + name, static_cast<double>(floor.items) / floor.wall_s, "items/s", cmd, 0, 0,
                 "the items " + name + " run's " + std::to_string(floor.transactions) +
                     " storage transactions replayed alone: a ceiling for items_per_s." + name + " (target " +
                     (batch == 1 ? ">= 50000" : ">= 200000") + ")"));
    b.add(bench_figure("floor_with_checkers_items_per_s." + name,
                 static_cast<double>(floor.items) / (floor.wall_s + run.check_wall_s), "items/s", cmd, 0, 0,
                 "the storage floor and every checker over the run's history"));
  }
  const uint64_t seeds = b.options.quick ? 30 : 1000;
  b.progress("floor: " + std::to_string(seeds) + " default seeds run, then their storage transactions replayed alone");
  const FloorReplay floor = campaign_storage_floor("default", 1, seeds);
  // A replay that answers otherwise than the run did is not the run's SQL.
  if (floor.disagreements > 0) {
    std::cerr << "[bench] the storage floor's replay disagreed with the run " << floor.disagreements << " times\n";
    b.void_run = true;
  }
  b.add(bench_figure("floor_seeds_per_s.default", static_cast<double>(seeds) / floor.wall_s, "seeds/s", cmd, 0, 0,
               std::to_string(floor.transactions / seeds) + " storage transactions a seed (" +
                   std::to_string(floor.pushes / seeds) +
                   " pushes) replayed alone: a ceiling for seeds_per_s.default (target >= 3000)"));
  b.add(bench_figure("floor_us_per_seed.default", 1e6 * floor.wall_s / static_cast<double>(seeds), "us", cmd));
  b.add(bench_figure("floor_checkers_us_per_seed.default", 1e6 * floor.checkers_wall_s / static_cast<double>(seeds), "us",
               cmd, 0, 0, "every property checker over the same seeds' histories"));
  b.add(bench_figure("floor_with_checkers_seeds_per_s.default",
               static_cast<double>(seeds) / (floor.wall_s + floor.checkers_wall_s), "seeds/s", cmd, 0, 0,
               "the storage floor and the checkers together: what target 2 (checkers on) leaves nothing else"));
  // A campaign's seed is a scenario document, generated then loaded (its
  // failure's file is that document): part of every seed however fast the
  // world becomes.
  b.add(bench_figure("floor_generation_us_per_seed.default", 1e6 * floor.generation_wall_s / static_cast<double>(seeds),
                     "us", cmd, 0, 0, "generating and loading the same seeds' scenario documents (no schema validation)"));
  b.add(bench_figure("floor_with_generation_seeds_per_s.default",
                     static_cast<double>(seeds) / (floor.wall_s + floor.checkers_wall_s + floor.generation_wall_s),
                     "seeds/s", cmd, 0, 0,
                     "the storage floor, the checkers and the scenarios' generation and loading: a campaign's seed "
                     "with no world at all"));
}

void campaigns_group(Bench& b) {
  const uint64_t default_seeds = b.options.quick ? 30 : 1000;
  const uint64_t other_seeds = b.options.quick ? 10 : 200;
  // Target 2's profile, checked and unchecked (target 7), in alternated
  // turns; each other profile is one run, a figure without a target.
  const int turns = b.options.quick ? 2 : 3;
  std::string checked_cmd, unchecked_cmd;
  const Alternated d = alternate(
      turns, [&] { return campaign(b, "default", default_seeds, 1, false, checked_cmd); },
      [&] { return campaign(b, "default", default_seeds, 1, true, unchecked_cmd); });
  const double checked_rate = d.a["seeds_per_s"].get<double>();
  const double unchecked_rate = d.b["seeds_per_s"].get<double>();
  const std::string fastest = "the fastest of " + std::to_string(turns) + " runs (";
  b.add(bench_figure("seeds_per_s.default", checked_rate, "seeds/s", checked_cmd, '>', 3000,
                     "one process; " + fastest + d.a_runs + "), alternated with --unchecked"));
  b.add(bench_figure("virtual_s_per_wall_s.default", d.a["virtual_s_per_wall_s"].get<double>(), "s/s", checked_cmd));
  b.add(bench_figure("seeds_per_s.default_unchecked", unchecked_rate, "seeds/s", unchecked_cmd, 0, 0,
                     "checked mode off; " + fastest + d.b_runs + "), alternated with checked mode on"));
  b.add(bench_figure("checked_cost.campaign", unchecked_rate / std::max(checked_rate, 1e-9), "x", checked_cmd, '<', 2,
                     "seeds/s unchecked over checked, default profile, each the fastest of " + std::to_string(turns) +
                         " alternated runs; the turns' own ratios: " + d.turn_ratios));
  for (const std::string& profile : profile_names()) {
    if (profile == "default") continue;
    std::string cmd;
    const json s = campaign(b, profile, other_seeds, 1, false, cmd);
    b.add(bench_figure("seeds_per_s." + profile, s["seeds_per_s"].get<double>(), "seeds/s", cmd, 0, 0, "one process, one run"));
  }
}

void jobs_group(Bench& b) {
  // Each run is long enough (about a second) that start-up and the last
  // worker's tail do not move the ratio. --jobs 1 and --jobs 2 take turns
  // (in ABBA order); each side's seeds/s is its fastest run (the seeds run
  // the same instructions every time, so a slower run measures the shared
  // machine, and --jobs 2, needing both cores, is slowed more often), and
  // the speedup is the ratio of the two: one run of each moves with the
  // machine far more than the code does. The turns' ratios are in the note.
  const uint64_t seeds = b.options.quick ? 30 : 2000;
  const int turns = b.options.quick ? 2 : 4;
  std::string cmd1, cmd2;
  const Alternated j = alternate(
      turns, [&] { return campaign(b, "default", seeds, 1, false, cmd1); },
      [&] { return campaign(b, "default", seeds, 2, false, cmd2); });
  const json& s1 = j.a;
  const json& s2 = j.b;
  const double one = s1["seeds_per_s"].get<double>(), two = s2["seeds_per_s"].get<double>();
  const std::string runs = "the fastest of " + std::to_string(turns) + " runs (";
  b.add(bench_figure("seeds_per_s.default_jobs1", one, "seeds/s", cmd1, 0, 0, runs + j.a_runs + "), alternated with --jobs 2"));
  b.add(bench_figure("seeds_per_s.default_jobs2", two, "seeds/s", cmd2, 0, 0, runs + j.b_runs + "), alternated with --jobs 1"));
  b.add(bench_figure("jobs_speedup.2_over_1", two / std::max(one, 1e-9), "x", b.self_command("jobs"), '>', 1.8,
                     "on " + std::to_string(cpu_cores()) + " cores, shared; each side's fastest of " +
                         std::to_string(turns) + " alternated runs; the turns' own ratios: " + j.turn_ratios));
  // Seeds per CPU second, workers included: what --jobs would give on idle
  // cores is this ratio times the jobs, when it is near 1 (a shared machine
  // takes cores away from the wall-clock figure, not from this one).
  const double per_cpu_one = static_cast<double>(seeds) / std::max(s1["cpu_s"].get<double>(), 1e-9);
  const double per_cpu_two = static_cast<double>(seeds) / std::max(s2["cpu_s"].get<double>(), 1e-9);
  b.add(bench_figure("seeds_per_cpu_s.default_jobs1", per_cpu_one, "seeds/cpu-s", cmd1));
  b.add(bench_figure("seeds_per_cpu_s.default_jobs2", per_cpu_two, "seeds/cpu-s", cmd2));
  b.add(bench_figure("jobs_cpu_efficiency.2_over_1", per_cpu_two / std::max(per_cpu_one, 1e-9), "x", b.self_command("jobs"),
               0, 0, "seeds per CPU second with --jobs 2 over --jobs 1; near 1: the workers share no bottleneck"));
}

void window_group(Bench& b) {
  const std::string cmd = b.self_command("window");
  const int64_t rows = 10'000;
  b.progress("window: 10000 rows, cache on, checked mode off");
  const WindowFigures on = run_window_workload({rows, b.options.quick ? 500u : 5000u, true, false});
  b.progress("window: 10000 rows, cache off, checked mode off");
  const WindowFigures off = run_window_workload({rows, b.options.quick ? 30u : 300u, false, false});
  b.progress("window: 10000 rows, cache on, checked mode on");
  const WindowFigures checked = run_window_workload({rows, b.options.quick ? 30u : 300u, true, true});
  const std::string where = "one partition, 10000-row window, checked mode off";
  b.add(bench_figure("rows_scanned_per_push.cache_on", on.rows_scanned_per_push, "rows", cmd, 0, 0, where));
  b.add(bench_figure("rows_scanned_per_push.cache_off", off.rows_scanned_per_push, "rows", cmd, 0, 0, where));
  // No row scanned at all over the timed pushes would be an infinite ratio:
  // count it as one row, a lower bound.
  const double on_rows = std::max(on.rows_scanned_per_push, 1.0 / (b.options.quick ? 500 : 5000));
  b.add(bench_figure("rows_scanned_ratio.off_over_on", off.rows_scanned_per_push / on_rows, "x", cmd, '>', 100,
               on.rows_scanned_per_push == 0 ? "cache on scanned no row: a lower bound" : ""));
  b.add(bench_figure("pushes_per_s.cache_on", on.pushes_per_s, "pushes/s", cmd, 0, 0, where + "; broker + storage, no world"));
  b.add(bench_figure("pushes_per_s.cache_off", off.pushes_per_s, "pushes/s", cmd, 0, 0, where + "; broker + storage, no world"));
  b.add(bench_figure("pushes_ratio.on_over_off", on.pushes_per_s / std::max(off.pushes_per_s, 1e-9), "x", cmd, '>', 50));
  b.add(bench_figure("pushes_per_s.cache_on_checked", checked.pushes_per_s, "pushes/s", cmd, 0, 0,
               "as cache_on, checked mode on (a full re-probe per push)"));
  b.add(bench_figure("checked_cost.window", on.pushes_per_s / std::max(checked.pushes_per_s, 1e-9), "x", cmd, 0, 0,
               "pushes/s unchecked over checked"));
  b.add(bench_figure("cache_bytes_per_hash.accounted", on.cache_bytes_per_hash, "bytes", cmd, '<', 48,
               std::to_string(on.cache_hashes) + " resident hashes; the cache's budget accounting"));
  b.add(bench_figure("cache_bytes_per_hash.heap", on.heap_bytes_per_hash, "bytes", cmd, '<', 48,
               "malloc in-use bytes freed when the cache is cleared"));
}

struct GrowthPoint {
  int64_t rows;
  double us_on, us_off;
};

std::vector<GrowthPoint> growth_group(Bench& b) {
  const std::string cmd = b.self_command("growth");
  std::vector<int64_t> sizes = {1'000, 10'000};
  if (!b.options.quick) sizes.push_back(100'000);
  // Cache on, a push is short enough that sizes timed one after the other
  // measure the machine's spells, not the growth. The sizes' workloads
  // stay alive and their timed rounds alternate, so a slow spell falls on
  // every size alike; each size's figure is its median round.
  const uint64_t on_pushes = b.options.quick ? 300 : 1000;
  const int on_rounds = b.options.quick ? 3 : 7;
  std::vector<std::unique_ptr<WindowRun>> on_runs;
  for (const int64_t rows : sizes) {
    b.progress("growth: " + std::to_string(rows) + " rows, cache on: pre-filling");
    on_runs.push_back(std::make_unique<WindowRun>(WindowWorkload{rows, on_pushes, true, false}));
  }
  b.progress("growth: cache on, " + std::to_string(on_rounds) + " rounds over every size");
  for (int round = 0; round < on_rounds; ++round) {
    for (auto& run : on_runs) run->timed_round(on_pushes);
  }
  std::vector<GrowthPoint> points;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t rows = sizes[i];
    const WindowFigures on = on_runs[i]->figures();
    on_runs[i].reset();
    b.progress("growth: " + std::to_string(rows) + " rows, cache off");
    // Cache off costs about a row per row in the window: keep each point's time similar.
    const uint64_t off_pushes =
        std::max<uint64_t>(b.options.quick ? 10 : 20, static_cast<uint64_t>((b.options.quick ? 2e5 : 2e6) / rows));
    const WindowFigures off = run_window_workload({rows, off_pushes, false, false});
    points.push_back({rows, 1e6 / on.pushes_per_s, 1e6 / off.pushes_per_s});
    const std::string r = std::to_string(rows);
    b.add(bench_figure("push_us.cache_on_" + r, points.back().us_on, "us", cmd, 0, 0,
                       "checked mode off; the median of " + std::to_string(on_rounds) + " rounds of " +
                           std::to_string(on_pushes) + " pushes, alternated with the other sizes"));
    b.add(bench_figure("push_us.cache_off_" + r, points.back().us_off, "us", cmd, 0, 0, "checked mode off"));
  }
  const std::string span = std::to_string(points.front().rows) + " -> " + std::to_string(points.back().rows) + " rows";
  b.add(bench_figure("push_cost_growth.cache_on", points.back().us_on / points.front().us_on, "x", cmd, '<', 1.3, span));
  b.add(bench_figure("push_cost_growth.cache_off", points.back().us_off / points.front().us_off, "x", cmd, 0, 0, span));
  return points;
}

void memory_group(Bench& b) {
  if (b.child_peak_kb == 0) {
    std::string cmd;
    campaign(b, "default", b.options.quick ? 30 : 5000, 1, false, cmd);
  }
  b.add(bench_figure("peak_rss_mb.check", b.child_peak_kb / 1024.0, "MB", b.child_peak_command, '<', 300,
               "the largest one-process campaign this bench ran (target: --seeds 100000)"));
  b.add(bench_figure("peak_rss_mb.bench", self_peak_kb() / 1024.0, "MB", b.self_command("memory"), 0, 0,
               "this process, every in-process workload so far"));
}

reports::Chart growth_chart(const std::vector<GrowthPoint>& points) {
  reports::Chart chart;
  chart.title = "Cost per push by rows in the window (one partition, checked mode off)";
  chart.x_label = "sidecar rows in the window";
  chart.y_label = "wall time per push (us)";
  chart.log_x = true;
  chart.log_y = true;
  chart.style = reports::ChartStyle::points;
  reports::ChartSeries on{"cache on", {}, reports::kPointCircleFilled, "#1b6ac9"};
  reports::ChartSeries off{"cache off", {}, reports::kPointTriangleOpen, "#c2410c"};
  for (const GrowthPoint& p : points) {
    on.points.push_back({static_cast<double>(p.rows), "", p.us_on, p.us_on, p.us_on});
    off.points.push_back({static_cast<double>(p.rows), "", p.us_off, p.us_off, p.us_off});
  }
  chart.series = {on, off};
  return chart;
}

}  // namespace

const std::vector<std::string>& bench_groups() {
  static const std::vector<std::string> groups = {"items",  "floor",  "campaigns", "jobs", "window",
                                                  "growth", "memory", "volume",    "cache"};
  return groups;
}

CLI::App* add_bench(CLI::App& app, BenchOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "Standard end-to-end workloads: items/s, seeds/s per profile, virtual s per wall s, rows scanned per "
               "push, cache bytes per hash, peak memory, and the storage floor (the runs' SQL replayed alone: a ceiling); each "
               "figure with its reproduction command");
  cmd->add_flag("--quick", o.quick, "A short run (a few seconds): fewer seeds and pushes, growth to 10 000 rows");
  cmd->add_flag("--json", o.as_json, "Print the figures as JSON");
  cmd->add_option("--only", o.only, "Run one group of figures")->check(NameIn(bench_groups(), "group"));
  cmd->add_option("--out", o.out_dir, "Also write DIR/bench.json and the push-cost chart DIR/push-cost.svg")
      ->check(OutputFolder());
  cmd->add_option("--case", o.item_cases, "With --only items: run this case only (repeatable), e.g. to profile it")
      ->check(NameIn(item_case_names(), "case"))
      ->default_str("");
  cmd->add_option("--rounds", o.item_rounds, "With --only items: rounds, the cold first one included (default 6, --quick 2)")
      ->check(WholeIn(2, 1000))
      ->default_str("");  // 0 stands for "not given", which is no value a user can pass
  return cmd;
}

int run_bench(const BenchOptions& options) {
  if ((!options.item_cases.empty() || options.item_rounds != 0) && options.only != "items") {
    std::cerr << "qdt bench: --case and --rounds narrow the items group: add --only items\n";
    return kExitBadInput;
  }
  if (options.engine == StorageEngineKind::postgres) {
    // The groups are SQLite's figures; the engines' comparison is one group of its own.
    if (!options.only.empty()) {
      std::cerr << "error: --only selects a group of SQLite's figures; --storage postgres measures both engines side "
                   "by side (no --only)\nnothing was run (exit 2)\n";
      return kExitBadInput;
    }
    if (const auto problem = start_pg_process_problem({options.pg_url, 1})) {
      std::cerr << "error: " << *problem << "\nnothing was run (exit 2)\n";
      return kExitBadInput;
    }
  }
  if (options.only == "cache" && !chosen_cache_module()) {
    std::cerr << "error: --only cache measures a foreign cache: name it with --cache-impl or --cache-lib\nnothing was "
                 "run (exit 2)\n";
    return kExitBadInput;
  }
  Bench b{options, {}, 0, "", false};
  const double load_before = load_average();
  auto runs = [&](const std::string& g) {
    return options.engine == StorageEngineKind::sqlite && (options.only.empty() || options.only == g);
  };
  std::vector<GrowthPoint> growth;
  if (options.engine == StorageEngineKind::postgres) engines_group(b);
  if (runs("items")) items_group(b);
  if (runs("floor")) floor_group(b);
  if (runs("campaigns")) campaigns_group(b);
  if (runs("jobs")) jobs_group(b);
  if (runs("window")) window_group(b);
  if (runs("growth")) growth = growth_group(b);
  if (runs("memory")) memory_group(b);
  if (runs("volume")) volume_group(b);
  if (runs("cache")) cache_group(b);

  json doc = bench_document(b.figures, options.quick, load_before, load_average());
  if (options.engine == StorageEngineKind::postgres) doc["storage"] = "postgres";
  if (options.as_json) std::cout << doc.dump(2) << "\n" << std::flush;
  else print_bench_table(doc, b.figures);

  if (!options.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.out_dir, ec);
    std::string write_error;
    if (!write_output_file(options.out_dir + "/bench.json", doc.dump(2) + "\n", &write_error)) {
      std::cerr << "error: --out " << write_error << "\n";
      return kExitBadInput;
    }
    if (!growth.empty()) {
      const reports::ChartsRendered drawn = reports::render_charts({growth_chart(growth)}, options.gnuplot);
      if (drawn.ok) {
        if (!write_output_file(options.out_dir + "/push-cost.svg", drawn.svgs.at(0) + "\n", &write_error)) {
          std::cerr << "error: --out " << write_error << "\n";
          return kExitBadInput;
        }
        std::cerr << "[bench] wrote " << options.out_dir << "/push-cost.svg\n";
      } else {
        std::cerr << "[bench] no chart: " << drawn.error << "\n";
      }
    }
    std::cerr << "[bench] wrote " << options.out_dir << "/bench.json\n";
  }
  if (b.void_run) std::cerr << "[bench] a workload failed: its figures are void (exit 1)\n";
  return b.void_run ? kExitFailed : kExitOk;
}

}  // namespace qdt::sim
