#include "sim/cli/replay_command.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include "reports/display_text.h"
#include "reports/summary.h"
#include "sim/base/json_input.h"
#include "sim/base/output_file.h"
#include "sim/campaign/campaign_journal.h"
#include "sim/cli/exit_codes.h"
#include "sim/scenario/engine_support.h"
#include "sim/scenario/runner.h"
#include "sim/world/cache_module_choice.h"
#include "sim/world/pg_process.h"
#include "sim/scenario/scenario.h"
#include "sim/base/shell_word.h"
#include "sim/scenario/replay_line.h"

namespace qdt::sim {
namespace {

namespace fs = std::filesystem;

using Skipped = std::vector<std::pair<std::string, std::string>>;  // (file or folder, why)

// Files named on the command line, and every *.json below named folders
// (except JSON Schema folders, sweep folders and a campaign's journal, which
// goes to `skipped`), sorted so the order never depends on the file system.
// Returns how many scenarios the arguments name (files found, and each argument that names none).
// `from_folders` gets the files found in folders rather than named.
size_t collect(const std::vector<std::string>& args, std::vector<std::string>& files, std::vector<LoadError>& errors,
               std::vector<std::string>& from_folders, Skipped& skipped) {
  for (const std::string& arg : args) {
    std::error_code ec;
    if (fs::is_directory(arg, ec) && is_journal_dir(arg)) {
      errors.push_back({arg, "/", "a campaign journal (qdt check --out), not scenarios: replay the folder above it"});
    } else if (fs::is_directory(arg, ec)) {
      std::vector<std::string> found;
      bool journal = false;
      for (auto it = fs::recursive_directory_iterator(arg, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec)) {
        if (it->is_directory() && (it->path().filename() == "schema" || it->path().filename() == "sweeps")) {
          it.disable_recursion_pending();
          continue;
        }
        if (it->is_directory() && is_journal_dir(it->path().string())) {
          it.disable_recursion_pending();
          skipped.emplace_back(it->path().string(), "not a scenario (campaign journal)");
          journal = true;
          continue;
        }
        if (it->is_regular_file() && it->path().extension() == ".json") found.push_back(it->path().string());
      }
      std::sort(found.begin(), found.end());
      if (found.empty()) {
        errors.push_back({arg, "/", std::string("no scenario files (*.json) in this folder") +
                                        (journal ? " beside its campaign journal" : "")});
      }
      files.insert(files.end(), found.begin(), found.end());
      from_folders.insert(from_folders.end(), found.begin(), found.end());
    } else if (const std::optional<std::string> problem = input_file_problem(arg)) {
      errors.push_back({arg, "/", *problem});  // a FIFO or a device is not "missing"
    } else {
      files.push_back(arg);
    }
  }
  return files.size() + errors.size();
}


}  // namespace

int run_replay(const ReplayOptions& o) {
  const std::string& trace_file = o.trace_file;
  const std::string& cache = o.cache;
  const std::string& report_file = o.report_file;
  const HtmlOutput& html = o.html;
  const impl::Variant variant = o.variant;
  std::vector<std::string> files;
  std::vector<LoadError> errors;
  std::vector<std::string> from_folders;
  // A folder's file the engine cannot run by itself (crash_storage), and a
  // campaign's journal, are skipped and named; a file named on the command
  // line, or a variant the engine cannot run, is refused.
  Skipped skipped;
  const size_t named = collect(o.paths, files, errors, from_folders, skipped);
  const size_t journals = skipped.size();
  // Load and validate everything before running anything.
  std::vector<Scenario> scenarios;
  for (const std::string& file : files) {
    auto loaded = load_scenario_file(file);
    if (loaded.scenario) scenarios.push_back(std::move(*loaded.scenario));
    errors.insert(errors.end(), loaded.errors.begin(), loaded.errors.end());
  }
  // Counted before loading, so one rejected file (however many errors it has) is one scenario.
  if (!trace_file.empty() && named != 1) {
    errors.push_back({trace_file, "/", "--trace takes exactly one scenario, " + std::to_string(named) + " given"});
  }
  // One page is one run: a folder or several files would need a choice.
  if (!html.file.empty() && named != 1) {
    errors.push_back({html.file, "/", "--html takes exactly one scenario, " + std::to_string(named) + " given"});
  }
  std::erase_if(scenarios, [&](const Scenario& s) {
    const auto own = engine_refuses(o.engine, s, impl::Variant::none);
    if (!own || std::find(from_folders.begin(), from_folders.end(), s.file) == from_folders.end()) return false;
    skipped.emplace_back(s.file, engine_display_name(o.engine) + " cannot run it: " + *own);
    return true;
  });
  for (const Scenario& s : scenarios) {
    if (const auto reason = engine_refuses(o.engine, s, variant)) {
      errors.push_back({s.file, "/", engine_display_name(o.engine) + " cannot run it: " + *reason});
    }
  }
  if (errors.empty() && scenarios.empty() && skipped.size() > journals) {
    errors.push_back({o.paths.front(), "/", engine_display_name(o.engine) + " can run none of its scenarios"});
  }
  if (!errors.empty()) {
    for (const LoadError& e : errors) std::cerr << "error: " << e.to_string() << "\n";
    std::cerr << "nothing was run (exit 2)\n";
    return kExitBadInput;
  }
  for (const auto& [file, reason] : skipped) std::cerr << "skipped: " << file << ": " << reason << "\n";
  if (o.engine == StorageEngineKind::postgres) {
    if (const auto problem = start_pg_process_problem({o.pg_url, 1})) {
      std::cerr << "error: " << *problem << "\nnothing was run (exit 2)\n";
      return kExitBadInput;
    }
  }

  RunOptions options;
  if (cache == "on") options.cache_enabled = true;
  if (cache == "off") options.cache_enabled = false;
  options.keep_trace_text = !trace_file.empty();
  options.variant = variant;
  options.schedule = o.schedule;
  options.engine = o.engine;

  std::vector<nlohmann::json> results;
  bool all_passed = true;
  const auto wall_start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const Scenario& s = scenarios[i];
    if (!o.quiet && scenarios.size() > 1) std::cerr << "[" << i + 1 << "/" << scenarios.size() << "] " << reports::terminal_text(s.name) << "\n";
    const auto start = std::chrono::steady_clock::now();
    std::optional<RunOutcome> ran;
    try {
      ran.emplace(run_scenario(s, options));
    } catch (const impl::ForeignCacheError& e) {
      // A module that panics or answers outside its contract is not a verdict
      // on the mechanism: the run cannot go on (as check: exit 2).
      std::cerr << "error: " << reports::terminal_text(s.file) << ": " << reports::terminal_text(e.what())
                << "\nthe run could not finish (exit 2)\n";
      return kExitBadInput;
    }
    RunOutcome& outcome = *ran;
    const auto wall_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const nlohmann::json& schedule = outcome.result.schedule;
    // A written-down schedule that names a fiber that was not ready is not
    // the schedule it says: bad input, not a verdict.
    if (!schedule.is_null() && schedule.contains("error")) {
      std::cerr << "error: " << s.file << ": /world/schedule/choices: "
                << schedule["error"].get<std::string>() << "\nthe run is not that schedule (exit 2)\n";
      return kExitBadInput;
    }
    all_passed = all_passed && outcome.passed;
    const std::string replay = replay_command({s.file, variant, cache, o.engine, o.schedule_flags});
    std::string write_error;
    if (!trace_file.empty() && !write_output_file(trace_file, outcome.trace_text, &write_error)) {
      std::cerr << "error: --trace " << write_error << "\n";
      return kExitBadInput;
    }
    if (!html.file.empty() &&
        !write_replay_html(s, outcome, replay, html)) {
      return kExitBadInput;
    }
    if (!o.as_json) {
      std::cout << (outcome.passed ? "PASS " : "FAIL ") << reports::terminal_text(s.name) << "  trace " << outcome.result.trace_hash;
      if (!schedule.is_null()) {
        std::cout << "  schedule " << schedule["mode"].get<std::string>();
        if (schedule["mode"] == "pct") std::cout << " depth " << schedule["depth"] << " k " << schedule["steps"] << " n " << schedule["fibers"];
      }
      std::cout << "\n";
      for (const RunFailure& f : outcome.result.failures) {
        std::cout << "  " << reports::terminal_text(f.signature() + " at step " + f.step + ": " + f.detail) << "\n";
        if (f.rule) {
          std::cout << "    rule " << properties::rule_id(*f.rule) << ": " << properties::rule_explanation(*f.rule)
                    << "\n";
        }
        if (f.why) std::cout << "    likely cause: " << reports::terminal_text(*f.why) << "\n";
      }
      if (!outcome.passed) {
        if (const std::string note = cache_module_note(); !note.empty()) std::cout << "  ran on the " << reports::terminal_text(note) << "\n";
        std::cout << command_below("  ", "replay it", replay);
      }
    }
    nlohmann::json result = outcome.result.to_json();
    result["wall_ms"] = wall_ms;  // outside the trace: never hashed
    result["replay"] = replay;    // for the --report page, which reads results only
    results.push_back(std::move(result));
  }
  const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (o.as_json) {
    // Always an array, one result per scenario, so a reader need not know how many files were named.
    std::cout << nlohmann::json(results).dump(2) << "\n";
  } else if (results.size() > 1) {
    std::cout << "\n" << reports::summary_table(results);
  }
  if (!o.quiet) {
    std::cerr << results.size() << " scenarios in " << total_s << " s wall";
    if (skipped.size() > journals) {
      std::cerr << " (" << skipped.size() - journals << " skipped: PostgreSQL cannot run them)";
    }
    std::cerr << "\n";
  }
  if (!report_file.empty()) {
    std::string write_error;
    if (!write_output_file(report_file, reports::summary_markdown("qdt replay", results), &write_error)) {
      std::cerr << "error: --report " << write_error << "\n";
      return kExitBadInput;
    }
  }
  return all_passed ? kExitOk : kExitFailed;
}

}  // namespace qdt::sim
