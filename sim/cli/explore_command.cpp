#include "sim/cli/explore_command.h"

#include <filesystem>
#include <iostream>

#include "reports/sweep_report.h"
#include "sim/base/file_name.h"
#include "sim/base/output_file.h"
#include "sim/base/shell_word.h"
#include "sim/cli/exit_codes.h"
#include "sim/study/sweep.h"
#include "sim/study/sweep_points.h"
#include "sim/study/sweep_run.h"
#include "sim/world/pg_process.h"
#include "sim/world/pg_sql_choice.h"

namespace qdt::sim {
namespace {

namespace fs = std::filesystem;

int bad_input(const std::vector<LoadError>& errors) {
  for (const LoadError& e : errors) std::cerr << "error: " << e.to_string() << "\n";
  std::cerr << "nothing was run or written (exit 2)\n";
  return kExitBadInput;
}


}  // namespace

int run_explore(const ExploreOptions& o, const WallClock& wall) {
  SweepLoad loaded = load_sweep_file(o.file);
  if (!loaded.sweep) return bad_input(loaded.errors);
  // The command line's variant wins over the file's, as --variant does for replay and check.
  if (!o.variant.empty()) loaded.sweep->variant = *impl::parse_variant(o.variant);
  if (o.no_expect) loaded.sweep->check_expectations = false;
  const Sweep& sweep = *loaded.sweep;
  // Every point's first seed must make a valid scenario before anything runs.
  if (auto errors = check_points(sweep); !errors.empty()) return bad_input(errors);
  if (auto errors = engine_refusals(sweep, o.engine); !errors.empty()) return bad_input(errors);
  if (o.engine == StorageEngineKind::postgres) {
    // Before any worker forks: each attaches to this server (sim/world/pg_process.h).
    if (auto problem = start_pg_process_problem({o.pg_url, static_cast<int64_t>(o.jobs)})) {
      return bad_input({{o.file, "/", *problem}});
    }
  }
  if (!o.quiet) {
    std::cerr << "qdt explore " << sweep.name << ": " << point_count(sweep) << " points x " << sweep.seeds
              << " seeds (first " << sweep.first_seed << "), "
              << (sweep.profile.empty() ? "scenario " + sweep.scenario_file : "profile " + sweep.profile)
              << ", variant " << impl::variant_name(sweep.variant)
              << (sweep.check_expectations ? "" : ", expectations ignored") << ", jobs " << o.jobs
              << (o.engine == StorageEngineKind::postgres ? ", storage postgres" : "") << "\n";
  }
  SweepRunOptions run;
  run.jobs = o.jobs;
  run.quiet = o.quiet;
  run.engine = o.engine;
  // The command that regenerates these files where they are (--jobs changes nothing but wall time).
  run.command = "qdt explore " + shell_word(o.file) +
                (o.out_dir == ExploreOptions().out_dir ? "" : " --out " + shell_word(o.out_dir)) +
                (o.variant.empty() ? "" : " --variant " + o.variant) + (o.no_expect ? " --no-expect" : "") +
                storage_flags(o.engine);
  run.commit = o.commit;
  SweepRunResult result = run_sweep(sweep, run, wall);
  if (!result.errors.empty()) return bad_input(result.errors);

  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  std::string write_error;
  // The schema already limits a name to [A-Za-z0-9._-] not starting with '.';
  // cleaning again keeps the outputs inside --out even if that rule drifts.
  const fs::path base = fs::path(o.out_dir) / file_name_part(sweep.name);
  const std::string json_path = base.string() + ".json", md_path = base.string() + ".md",
                    html_path = base.string() + ".html";
  if (!write_output_file(json_path, result.document.dump(2) + "\n", &write_error) ||
      !write_output_file(md_path, reports::sweep_markdown(result.document), &write_error) ||
      !write_output_file(html_path, reports::sweep_html(result.document, o.gnuplot), &write_error)) {
    std::cerr << "error: --out " << write_error << "\n";
    return kExitBadInput;
  }
  const uint64_t failures = result.document["failures"].get<uint64_t>();
  std::cout << (failures ? "FAIL " : "PASS ") << sweep.name << ": " << result.document["points"].size()
            << " points, " << result.document["runs"] << " runs, " << failures << " failing\n"
            << "  " << json_path << "\n  " << md_path << "\n  " << html_path << "\n";
  constexpr uint64_t kListed = 20;  // the rest are in NAME.json and the reports
  uint64_t listed = 0;
  for (const auto& p : result.document["points"]) {
    for (const auto& f : p["failed_seeds"]) {
      if (listed++ >= kListed) continue;
      std::cout << "  point " << p["index"] << " (" << p["knobs"].dump() << ") seed " << f["seed"] << ": "
                << f["property"].get<std::string>() << "\n";
    }
  }
  if (listed > kListed) std::cout << "  ... and " << listed - kListed << " more failing runs (failed_seeds in " << json_path << ")\n";
  return result.all_passed ? kExitOk : kExitFailed;
}

}  // namespace qdt::sim
