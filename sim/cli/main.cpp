// qdt: the command line (docs/semantics.md §4): parses arguments and dispatches to replay
// (replay_command.h) or to a campaign (campaign_jobs.h, campaign_merge.h). Exit codes as
// exit_codes.h. Wall-clock readings in qdt are here and in replay_command.cpp,
// to report wall time outside the trace; campaigns get it through a WallClock.
#include <CLI/CLI.hpp>
#include <sqlite3.h>
#include <unistd.h>

#include <cassert>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "reports/display_text.h"
#include "sim/alloc/sqlite_allocator.h"
#include "sim/base/json_input.h"
#include "sim/base/output_file.h"
#include "sim/base/shell_word.h"
#include "sim/campaign/campaign_jobs.h"
#include "sim/campaign/campaign_merge.h"
#include "sim/campaign/campaign_options.h"
#include "sim/campaign/campaign_resume.h"
#include "sim/campaign/workload.h"
#include "sim/cli/bench_command.h"
#include "sim/cli/cli_checks.h"
#include "sim/cli/exit_codes.h"
#include "sim/cli/explore_command.h"
#include "sim/cli/html_command.h"
#include "sim/cli/mutants_command.h"
#include "sim/cli/promote_command.h"
#include "sim/cli/replay_command.h"
#include "sim/cli/schedule_cli.h"
#include "sim/cli/cache_flags.h"
#include "sim/cli/sql_flags.h"
#include "sim/cli/usage.h"
#include "sim/scenario/coverage.h"
#include "sim/scenario/engine_support.h"

using qdt::sim::kExitBadInput;
using qdt::sim::kExitOk;

namespace {

// The command as typed, for the page's "what was run", each argument as
// the shell reads it back.
std::string command_line(int argc, char** argv) {
  std::string out = "qdt";
  for (int i = 1; i < argc; ++i) out += " " + qdt::sim::shell_word(argv[i]);
  return out;
}

int run_qdt(int argc, char** argv);

}  // namespace

int main(int argc, char** argv) {
  const int code = run_qdt(argc, argv);
  // A result that never reached standard output (a full disk, a closed pipe) is no result.
  if (const std::optional<std::string> problem = qdt::sim::standard_output_problem()) {
    std::cerr << "error: " << *problem << "\n";
    return kExitBadInput;
  }
  return code;
}

namespace {

int run_qdt(int argc, char** argv) {
  // qdt is one thread (fibers; --jobs forks processes), so SQLite's mutexes
  // and its allocation statistics guard nothing here, and cost CPU on every
  // statement. Before anything initializes SQLite, or the calls would be
  // refused.
  [[maybe_unused]] const int single = sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
  [[maybe_unused]] const int no_stats = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  assert(single == SQLITE_OK && no_stats == SQLITE_OK);
  // One thread, so SQLite's small objects can come from free lists
  // (sim/alloc/sqlite_allocator.h); not under AddressSanitizer.
  qdt::sim::install_sqlite_allocator();
  CLI::App app{"qdt: a simulation and verification testbed for idempotent producers"};
  app.require_subcommand(1);
  // --help shows what an option is when it is not given.
  app.option_defaults()->always_capture_default();

  auto* replay_cmd = app.add_subcommand("replay", "Run scenario files deterministically and check them");
  qdt::sim::ReplayOptions replay_args;
  replay_cmd->add_option("paths", replay_args.paths, "Scenario files or folders (searched recursively)")
      ->required()
      ->default_str("");
  replay_cmd->add_flag("--json", replay_args.as_json, "Print an array of result objects as JSON, one per scenario");
  replay_cmd->add_option("--trace", replay_args.trace_file, "Write the canonical event log of the (single) scenario to FILE")
      ->check(qdt::sim::OutputFile());
  replay_cmd->add_option("--cache", replay_args.cache, "Override world.cache.enabled")
      ->check(qdt::sim::NameIn({"on", "off"}, "setting"));
  replay_cmd->add_option("--report", replay_args.report_file, "Write a Markdown summary report to FILE")
      ->check(qdt::sim::OutputFile());
  replay_cmd->add_flag("--quiet", replay_args.quiet, "No progress on stderr");
  qdt::sim::HtmlOutput html;
  replay_cmd->add_option("--html", html.file,
                         "Write one self-contained HTML page of the (single) scenario to FILE: its steps, responses "
                         "and faults, offsets over virtual time, and for a failure the offending events beside the "
                         "model's answer")
      ->check(qdt::sim::OutputFile());

  std::string variant_name = "none";
  std::vector<std::string> variant_choices = qdt::impl::variant_names();
  variant_choices.push_back("none");
  replay_cmd->add_option("--variant", variant_name, "Run a design variant of the implementation (docs/semantics.md §7)")
      ->check(qdt::sim::NameIn(variant_choices, "variant"));
  std::vector<std::string> profile_choices = qdt::sim::profile_names();
  for (const std::string& name : qdt::sim::postgres_profile_names()) profile_choices.push_back(name);
  profile_choices.push_back("all");
  qdt::sim::ScheduleFlags replay_schedule, check_schedule;
  qdt::sim::add_schedule_flags(*replay_cmd, replay_schedule);

  auto* check_cmd = app.add_subcommand("check", "Random campaign: generated scenarios judged by every property; failures shrunk to files");
  qdt::sim::CampaignOptions check_args;
  std::vector<CLI::Option*> campaign_defining;  // what --resume takes from the journal instead
  campaign_defining.push_back(check_cmd->add_option("--seeds", check_args.seeds, "Seeds per profile")
                                  ->check(qdt::sim::WholeIn(1, 100'000'000)));
  campaign_defining.push_back(check_cmd->add_option("--seed", check_args.first_seed, "First seed")
                                  ->check(qdt::sim::WholeIn(0, UINT64_MAX)));
  campaign_defining.push_back(check_cmd->add_option("--profile", check_args.profile, "Workload profile, or all")
      ->check(qdt::sim::NameIn(profile_choices, "profile")));
  campaign_defining.push_back(check_cmd->add_option("--variant", variant_name, "Run against a design variant (docs/semantics.md §7)")
                                  ->check(qdt::sim::NameIn(variant_choices, "variant")));
  auto* out_opt = check_cmd->add_option(
      "--out", check_args.out_dir,
      "Where shrunk failures are written; when given, also a progress journal "
      "(DIR/journal) for --resume")
      ->check(qdt::sim::OutputFolder());
  campaign_defining.push_back(out_opt);
  campaign_defining.push_back(check_cmd->add_option(
      "--shard", check_args.shard, "Run only seeds with seed % N == I (I/N), to split a campaign across machines"));
  uint64_t jobs = 1;
  std::vector<std::string> merge_files;
  campaign_defining.push_back(
      check_cmd->add_option("--merge", merge_files, "Merge the --json summaries of shards instead of running")
          ->default_str(""));
  check_cmd->add_option("--jobs", jobs, "Worker processes")->check(qdt::sim::WholeIn(1, 64));
  check_cmd->add_option("--time-budget", check_args.time_budget_s, "Stop after this many wall seconds (0: no limit)")
      ->check(qdt::sim::NumberIn(0, 1e9));
  campaign_defining.push_back(
      check_cmd->add_option("--max-shrinks", check_args.max_shrinks, "Shrink at most this many failures")
          ->check(qdt::sim::WholeIn(0, INT32_MAX)));
  std::string interleave;
  campaign_defining.push_back(
      check_cmd
          ->add_option("--interleave", interleave,
                       "Override world.storage.interleave (statement-level interleaving of storage transactions)")
          ->check(qdt::sim::NameIn({"on", "off"}, "setting")));
  std::string resume_dir;
  auto* resume_opt = check_cmd->add_option(
      "--resume", resume_dir,
      "Continue the campaign journaled in DIR (an earlier qdt check --out DIR, killed, stopped or ended by Ctrl-C): seeds already "
      "journaled are not run again; the summary and digest cover the whole campaign");
  for (CLI::Option* o : campaign_defining) resume_opt->excludes(o);
  qdt::sim::add_schedule_flags(*check_cmd, check_schedule);
  for (CLI::Option* o : {check_cmd->get_option("--schedule"), check_schedule.depth_option, check_schedule.steps_option}) {
    resume_opt->excludes(o);  // the journal records the schedule
  }
  std::string storage_name = "sqlite";
  std::string pg_url;
  qdt::sim::PgSqlChoice pg_sql;
  qdt::sim::CacheModuleFlags cache_module;
  CLI::Option* check_storage_opt = nullptr;  // --resume takes the journal's engine when it is absent
  for (CLI::App* cmd : {replay_cmd, check_cmd}) {
    CLI::Option* opt =
        cmd->add_option("--storage", storage_name, "The storage engine (docs/semantics.md §9): sqlite or postgres")
            ->check(qdt::sim::NameIn({"sqlite", "postgres"}, "storage engine"));
    if (cmd == check_cmd) check_storage_opt = opt;
    cmd->add_option("--pg-url", pg_url, "With --storage postgres: a server to use instead of a throwaway local cluster");
    qdt::sim::add_sql_flags(*cmd, pg_sql);
    qdt::sim::add_cache_flags(*cmd, cache_module);
  }
  check_cmd->add_flag("--json", check_args.as_json, "Print the campaign summary as JSON");
  check_cmd->add_flag("--quiet", check_args.quiet, "No progress on stderr");
  check_cmd->add_flag_callback("--unchecked", [&] { check_args.checked_mode = false; },
                               "Brokers' storage without checked mode (cache-transparency's re-probe): for throughput");
  check_cmd->add_flag("--coverage", check_args.coverage_table,
                      "After the summary, the reachability points reached and never reached, and a row per point: "
                      "seeds that reached it, per profile (--json and --html carry it always)");
  check_cmd->add_flag("--require-coverage", check_args.require_coverage,
                      "Exit 1 when a point of the required list (sim/scenario/coverage_required.txt, or --coverage-list) was "
                      "never reached");
  check_cmd
      ->add_option("--fork-rare", check_args.fork_rare_share,
                   "Fork a seed at each reachability point it is the first to reach while fewer than SHARE of the "
                   "seeds so far reached it: re-run it --forks times with the schedule after that point re-drawn (0: off)")
      ->check(qdt::sim::NumberIn(0.0, 1.0));
  check_cmd->add_option("--forks", check_args.forks, "Fork runs per rare point (with --fork-rare)")
      ->check(qdt::sim::WholeIn(1, 1000));
  std::string coverage_list;
  check_cmd->add_option("--coverage-list", coverage_list,
                        "The required points for --require-coverage: one name per line, # comments")
      ->check(CLI::ExistingFile);
  auto* check_html_opt = check_cmd->add_option("--html", html.file,
                        "Write the campaign's self-contained HTML page to FILE instead of OUT/campaign.html: the "
                        "verdict, failures with the timeline of every shrunk one replayed, counts, coverage")
      ->check(qdt::sim::OutputFile());
  bool no_page = false;
  check_cmd->add_flag("--no-html", no_page, "Write no campaign page")->excludes(check_html_opt);

  qdt::sim::MutantsCommand mutants;
  CLI::App* mutants_cmd = qdt::sim::add_mutants(app, mutants, profile_choices);

  auto* explore_cmd = app.add_subcommand(
      "explore", "Parameter sweep (docs/semantics.md §4): OUT/NAME.{json,md,html}, a table per metric and an SVG chart per knob");
  qdt::sim::ExploreOptions explore_args;
  explore_cmd->add_option("sweep", explore_args.file, "Sweep file (JSON; scenarios/schema/sweep.schema.json)")->required();
  explore_cmd->add_option("--jobs", explore_args.jobs, "Worker processes (results identical for any J)")
      ->check(qdt::sim::WholeIn(1, 64));
  explore_cmd->add_option("--out", explore_args.out_dir, "Where NAME.{json,md,html} are written")
      ->check(qdt::sim::OutputFolder());
  explore_cmd->add_flag("--quiet", explore_args.quiet, "No progress on stderr");
  explore_cmd->add_flag("--no-expect", explore_args.no_expect,
                        "Only the properties judge: a scenario base's expect block is not checked (overrides the sweep's \"expectations\")");
  explore_cmd->add_option("--variant", explore_args.variant, "Run every point against a design variant (docs/semantics.md §7), overriding the sweep's \"variant\"")
      ->check(qdt::sim::NameIn(variant_choices, "variant"));

  qdt::sim::ExploreSchedulesOptions schedules_args;
  std::string schedules_variant = "none";
  CLI::App* schedules_cmd = qdt::sim::add_explore_schedules(app, schedules_args, schedules_variant, variant_choices);

  qdt::sim::BenchOptions bench_args;
  CLI::App* bench_cmd = qdt::sim::add_bench(app, bench_args);
  for (CLI::App* cmd : {mutants_cmd, explore_cmd, schedules_cmd, bench_cmd}) {
    cmd->add_option("--storage", storage_name, "The storage engine (docs/semantics.md §9): sqlite or postgres")
        ->check(qdt::sim::NameIn({"sqlite", "postgres"}, "storage engine"));
    cmd->add_option("--pg-url", pg_url, "With --storage postgres: a server to use instead of a throwaway local cluster");
    qdt::sim::add_sql_flags(*cmd, pg_sql);
    qdt::sim::add_cache_flags(*cmd, cache_module);
  }
  qdt::sim::PromoteOptions promote_args;
  CLI::App* promote_cmd = qdt::sim::add_promote(app, promote_args);
  // The reference's answers become the regression's expectations: with a foreign cache, its module's run.
  qdt::sim::add_cache_flags(*promote_cmd, cache_module);
  std::string help_topic;
  CLI::App* help_cmd = qdt::sim::add_version_and_help(app, help_topic);

  if (const std::optional<int> code = qdt::sim::refuse_unknown_command(app, argc, argv)) return *code;

  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError&) {
    return qdt::sim::refuse_extras(app);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  if (help_cmd->parsed()) return qdt::sim::run_help(app, help_topic);
  const qdt::impl::Variant variant = *qdt::impl::parse_variant(variant_name);
  if (!pg_url.empty() && storage_name != "postgres") {
    std::cerr << "error: --pg-url names a PostgreSQL server: it needs --storage postgres\nnothing was run (exit 2)\n";
    return kExitBadInput;
  }
  if (const auto problem = qdt::sim::use_sql_flags(pg_sql, storage_name == "postgres")) {
    std::cerr << "error: " << *problem << "\nnothing was run (exit 2)\n";
    return kExitBadInput;
  }
  if (const auto problem = qdt::sim::use_cache_flags(cache_module)) {
    std::cerr << "error: " << *problem << "\nnothing was run (exit 2)\n";
    return kExitBadInput;
  }
  if (promote_cmd->parsed()) return qdt::sim::run_promote(promote_args);
  if (!interleave.empty()) check_args.interleave = interleave == "on";
  const qdt::sim::StorageEngineKind engine = *qdt::sim::parse_storage_engine(storage_name);
  // Read here rather than in the libraries, as explore does.
  if (const char* commit = std::getenv("QDT_COMMIT")) html.commit = commit;
  if (const char* gnuplot = std::getenv("QDT_GNUPLOT"); gnuplot && *gnuplot) html.gnuplot = gnuplot;
  std::string schedule_error;
  const auto replay_override = qdt::sim::schedule_override(replay_schedule, schedule_error);
  const auto check_override = qdt::sim::schedule_override(check_schedule, schedule_error);
  if (!schedule_error.empty()) {
    std::cerr << "error: " << schedule_error << "\nnothing was run (exit 2)\n";
    return kExitBadInput;
  }
  if (check_override) check_args.schedule = check_override->to_json();
  check_args.schedule_flags = qdt::sim::schedule_flags_text(check_override);
  if (bench_cmd->parsed()) {
    bench_args.program = argv[0];
    bench_args.engine = engine;
    bench_args.pg_url = pg_url;
    if (const char* gnuplot = std::getenv("QDT_GNUPLOT"); gnuplot && *gnuplot) bench_args.gnuplot = gnuplot;
    return qdt::sim::run_bench(bench_args);
  }
  if (replay_cmd->parsed()) {
    replay_args.variant = variant;
    replay_args.engine = engine;
    replay_args.pg_url = pg_url;
    replay_args.html = html;
    replay_args.schedule = replay_override;
    replay_args.schedule_flags = qdt::sim::schedule_flags_text(replay_override);
    return qdt::sim::run_replay(replay_args);
  }
  if (schedules_cmd->parsed()) {
    const auto wall_start = std::chrono::steady_clock::now();
    const qdt::sim::WallClock wall = [wall_start] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    };
    schedules_args.variant = *qdt::impl::parse_variant(schedules_variant);
    schedules_args.engine = engine;
    schedules_args.pg_url = pg_url;
    return qdt::sim::run_explore_schedules(schedules_args, wall);
  }
  nlohmann::json summary;
  bool page_is_default = false;
  // The campaign page needs the merged summary, so it is written after the text summary.
  auto with_html = [&](qdt::sim::Outcome outcome) {
    const int code = qdt::sim::exit_code(outcome);
    if (html.file.empty() || summary.is_null() || code == kExitBadInput) return code;
    // A merged summary names its variant; a run's is --variant's.
    const auto ran = qdt::impl::parse_variant(summary.value("variant", std::string("none")));
    if (page_is_default) {
      // OUT holds the failures and the journal only when there are some: the page may come first.
      std::error_code ec;
      std::filesystem::create_directories(std::filesystem::path(html.file).parent_path(), ec);
      if (ec) {
        std::cerr << "error: --html " << qdt::reports::terminal_text(html.file) << ": " << ec.message() << "\n";
        return kExitBadInput;
      }
    }
    if (!qdt::sim::write_check_html(summary, ran ? *ran : variant, command_line(argc, argv), html)) return kExitBadInput;
    // Where the page is, last: on stdout under the summary, on stderr beside --json.
    (check_args.as_json ? std::cerr : std::cout) << "page: " << qdt::reports::terminal_text(html.file) << "\n";
    return code;
  };
  // A campaign writes its page beside its journal and failures unless told otherwise.
  const auto default_page = [&](const std::string& out_dir) {
    if (!html.file.empty() || no_page) return;
    html.file = (std::filesystem::path(out_dir) / "campaign.html").string();
    page_is_default = true;
  };
  if (check_cmd->parsed() && check_args.require_coverage) {
    // The list is checked before anything runs: a name outside the catalogue is bad input.
    std::string text = qdt::sim::required_points_text(), reason;
    if (!coverage_list.empty()) {
      const std::optional<std::string> read = qdt::sim::read_input_file(coverage_list, reason);
      if (!read) {
        std::cerr << "error: --coverage-list " << coverage_list << ": " << reason << "\nnothing was run (exit 2)\n";
        return kExitBadInput;
      }
      text = *read;
    }
    const auto names = qdt::sim::parse_required_points(text, reason);
    if (!names) {
      std::cerr << "error: " << (coverage_list.empty() ? "sim/scenario/coverage_required.txt" : coverage_list) << ": "
                << reason << "\nnothing was run (exit 2)\n";
      return kExitBadInput;
    }
    check_args.required_points = *names;
  }
  if (check_cmd->parsed() && !merge_files.empty()) {
    return with_html(qdt::sim::merge_summaries(merge_files, check_args, &summary));
  }
  if (explore_cmd->parsed()) {
    const auto wall_start = std::chrono::steady_clock::now();
    const qdt::sim::WallClock wall = [wall_start] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    };
    // The commit and the chart renderer come from the environment, read here
    // rather than in the libraries (scripts set QDT_COMMIT=$(git rev-parse HEAD)).
    if (const char* commit = std::getenv("QDT_COMMIT")) explore_args.commit = commit;
    if (const char* gnuplot = std::getenv("QDT_GNUPLOT"); gnuplot && *gnuplot) explore_args.gnuplot = gnuplot;
    explore_args.engine = engine;
    explore_args.pg_url = pg_url;
    return qdt::sim::run_explore(explore_args, wall);
  }
  if (mutants_cmd->parsed()) {
    const auto wall_start = std::chrono::steady_clock::now();
    const qdt::sim::WallClock wall = [wall_start] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    };
    mutants.options.engine = engine;
    mutants.options.pg_url = pg_url;
    return qdt::sim::run_mutants_command(mutants, command_line(argc, argv), wall);
  }
  if (check_cmd->parsed()) {
    check_args.progress_terminal = isatty(STDERR_FILENO) == 1;
    const auto wall_start = std::chrono::steady_clock::now();
    const qdt::sim::WallClock wall = [wall_start] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    };
    if (!resume_dir.empty()) {
      check_args.out_dir = resume_dir;
      default_page(resume_dir);
      check_args.pg_url = pg_url;
      std::optional<qdt::sim::StorageEngineKind> engine;
      if (check_storage_opt->count() > 0) engine = qdt::sim::parse_storage_engine(storage_name);
      return with_html(qdt::sim::resume_campaign(check_args, jobs, wall, &summary, nullptr, engine));
    }
    check_args.journal = out_opt->count() > 0;
    default_page(check_args.out_dir);
    check_args.engine = engine;
    check_args.pg_url = pg_url;
    return with_html(qdt::sim::run_campaign(check_args, variant, jobs, wall, &summary));
  }
  return kExitBadInput;
}

}  // namespace
