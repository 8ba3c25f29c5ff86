#include "sim/campaign/campaign_jobs.h"

#include <algorithm>
#include <cassert>
#include <iostream>
#include <utility>

#include "reports/display_text.h"
#include "sim/base/decimal_text.h"
#include "sim/base/fork_pool.h"
#include "sim/base/outcome.h"
#include "sim/base/shell_word.h"
#include "sim/campaign/campaign.h"
#include "sim/campaign/campaign_forks.h"
#include "sim/campaign/campaign_journal.h"
#include "sim/campaign/campaign_merge.h"
#include "sim/campaign/failure_file.h"
#include "sim/campaign/interrupt_note.h"
#include "sim/campaign/progress_line.h"
#include "sim/campaign/triage.h"
#include "sim/campaign/workload.h"
#include "sim/scenario/coverage.h"
#include "sim/scenario/engine_support.h"
#include "sim/world/pg_process.h"
#include "sim/world/cache_module_choice.h"
#include "sim/world/pg_sql_choice.h"

namespace qdt::sim {

using json = nlohmann::json;

std::optional<Shard> parse_shard(const std::string& text) {
  if (text.empty()) return Shard{};
  const auto slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  // Strictly decimal: stoull would take "-1" as 2^64-1.
  const std::optional<uint64_t> index = parse_decimal(std::string_view(text).substr(0, slash), nullptr);
  const std::optional<uint64_t> count = parse_decimal(std::string_view(text).substr(slash + 1), nullptr);
  if (!index || !count || *count == 0 || *index >= *count) return std::nullopt;
  return Shard{*index, *count};
}

namespace {

// Every property that failed the run, each once, in the order they failed:
// a seed caught by several shows which of them would have caught it alone.
json failing_properties(const RunResult& result) {
  json names = json::array();
  for (const auto& failure : result.failures) {
    const std::string name = failure.signature();
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

// " (also offsets, client-visible)" when more properties than the first failed.
std::string also_failed(const json& failure) {
  std::string out;
  for (const json& name : failure["properties"]) {
    if (name == failure["property"]) continue;
    out += (out.empty() ? " (also " : ", ") + name.get<std::string>();
  }
  return out.empty() ? out : out + ")";
}

// A shrunk failure's file, as the summary reports it.
void add_file(json& failure, const FailureFile& file) {
  if (!file.written) failure["file_error"] = file.path;
  failure["file"] = file.path;
  failure["steps"] = file.steps;
  failure["shrink_runs"] = file.shrink_runs;
  failure["replay"] = file.replay;
}

// Adds one finished seed to a share summary (run_share's shape).
void add_seed(json& share, const std::string& profile, uint64_t seed, const SeedOutcome& o, const json* failure) {
  share["seeds_run"] = share["seeds_run"].get<uint64_t>() + 1;
  share["seed_hashes"].push_back(profile + " " + std::to_string(seed) + " " +
                                 (o.loaded ? o.result.trace_hash : std::string("-")));
  share["seeds_done"].push_back({profile, seed});
  // A generator failure's result has no metrics.
  const json& metrics = o.result.metrics;
  share["pushes"] = share["pushes"].get<uint64_t>() + metrics.value("storage_pushes", uint64_t{0});
  share["virtual_ms"] = share["virtual_ms"].get<uint64_t>() + metrics.value("virtual_duration_ms", uint64_t{0});
  add_metrics(share["metrics"], metrics);
  add_run_coverage(share["coverage"], profile, o.result.reached);
  if (failure) {
    share["failed"] = share["failed"].get<uint64_t>() + 1;
    share["failures"].push_back(*failure);
  }
}

}  // namespace

std::optional<std::string> engine_refuses_campaign(StorageEngineKind engine, const std::string& profile,
                                                  impl::Variant variant) {
  if (engine == StorageEngineKind::sqlite) {
    if (profile_needs_postgres(profile)) {
      return "profile " + profile + " needs per-partition row locks: run it with --storage postgres";
    }
    return engine_refuses_variant(engine, variant);
  }
  // Power loss is SQLite's VFS (docs/semantics.md §9.1); "all" runs every other profile.
  if (profile_needs_power_loss(profile)) {
    return "--storage postgres: profile " + profile + " needs crash_storage (power loss), which is SQLite's";
  }
  if (auto reason = engine_refuses_variant(engine, variant)) return "--storage postgres: " + *reason;
  if (!variant_runs_profile(variant, profile)) {
    return "variant " + impl::variant_name(variant) + " probes each segment in a transaction of its own, which "
           "profile " + profile + "'s bundles do not have (profile all runs every other profile)";
  }
  return std::nullopt;
}

json run_share(const CampaignOptions& a, impl::Variant variant, uint64_t worker, uint64_t workers,
               const WallClock& wall, SharedTally* tally) {
  const std::optional<Shard> shard = parse_shard(a.shard);
  assert(shard && "run_campaign validates the shard");
  assert(worker < workers);
  const uint64_t shard_index = shard->index, shard_count = shard->count;
  const std::vector<std::string> profiles = profiles_to_run(a.profile, a.engine == StorageEngineKind::sqlite, variant);

  const double start = wall();
  auto elapsed_s = [&] { return wall() - start; };
  const uint64_t total = a.seeds * profiles.size();
  uint64_t done = 0, failed = 0, shrinks = 0;
  bool out_of_time = false, stopped = false;
  // Worker 0 speaks for all, from every worker's counts.
  std::optional<ProgressLine> progress;
  if (!a.quiet && worker == 0) progress.emplace(a.progress_terminal, total / shard_count, a.skip.size());
  json share = empty_share();
  RareForker forker(a.fork_rare_share, a.forks, variant, a.engine);
  if (forker.enabled()) {
    share["forking"] = empty_forking();
    share["fork_failures"] = json::array();
  }
  JournalWriter journal(a.journal ? a.out_dir : "", a.journal_run, worker, wall,
                        a.journal ? campaign_key(a, variant, chosen_sql_content_hash(), chosen_cache_content_hash(),
                                                 chosen_cache_module() ? impl::cache_caller_name(chosen_cache_module()->caller) : "")
                                  : "");
  for (const std::string& profile : profiles) {
    for (uint64_t i = 0; i < a.seeds && !out_of_time && !stopped; ++i) {
      const uint64_t seed = a.first_seed + i;
      if (seed % shard_count != shard_index || (seed / shard_count) % workers != worker) continue;
      if (a.skip.count({profile, seed})) continue;  // finished by an earlier run (--resume)
      if (stop_requested()) {
        stopped = true;  // Ctrl-C: what finished is journaled below
        break;
      }
      std::optional<SeedOutcome> ran;
      const impl::postgres::ServerNotices heard = pg_server_messages();
      try {
        ran.emplace(check_seed(seed, profile, variant, a.interleave, a.schedule, a.checked_mode, a.engine));
      } catch (const std::exception& e) {
        // Not a finding: the engine or the machine failed under the seed (a
        // server lost or out of connections, or stopped by the same Ctrl-C).
        // What finished is journaled.
        journal.checkpoint(true);
        if (stop_requested()) {
          share["interrupted"] = true;
        } else {
          share["engine_error"] = {{"profile", profile}, {"seed", seed}, {"message", e.what()}};
        }
        share["out_of_time"] = out_of_time;
        return share;
      }
      SeedOutcome& o = *ran;
      // The server's NOTICEs and WARNINGs during the seed: counted, never printed.
      if (a.engine == StorageEngineKind::postgres && o.result.metrics.is_object()) {
        o.result.metrics["server_notices"] = pg_server_messages().notices - heard.notices;
        o.result.metrics["server_warnings"] = pg_server_messages().warnings - heard.warnings;
      }
      ++done;
      if (tally) tally->add(worker, 1, o.passed ? 0 : 1);
      if (o.passed) {
        add_seed(share, profile, seed, o, nullptr);
        if (journal.journaling()) add_seed(journal.delta(), profile, seed, o, nullptr);
        journal.checkpoint(false);
      } else {
        ++failed;
        json f = {{"profile", profile},
                  {"seed", seed},
                  {"property", o.signature},
                  {"properties", failing_properties(o.result)},
                  {"detail", o.result.failures[0].detail},
                  {"step_kind", failing_step_kind(o.scenario, o.result.failures[0].step)}};
        o.result.failures[0].add_rule_fields(f);
        if (o.result.failures[0].why) f["why"] = *o.result.failures[0].why;
        if (shrinks < static_cast<uint64_t>(a.max_shrinks)) {
          ++shrinks;
          add_file(f, write_failure_file(o, profile, variant, a.out_dir, a.engine));
        }
        add_seed(share, profile, seed, o, &f);
        if (journal.journaling()) add_seed(journal.delta(), profile, seed, o, &f);
        // A reported failure (its file) is journaled before it is printed; others wait for the next part.
        journal.checkpoint(f.contains("file"));
        if (f.contains("file")) {
          if (!a.as_json) {
            if (!a.quiet) ProgressLine::erase(a.progress_terminal);
            std::cout << "FAIL " << profile << " seed " << seed << ": " << o.signature << also_failed(f) << " — "
                      << f["detail"].get<std::string>() << "\n"
                      << (f.contains("why") ? "  likely cause: " + f["why"].get<std::string>() + "\n" : std::string())
                      << "  shrunk to " << f["steps"] << " steps in "
                      << f["shrink_runs"] << " replays: " << f["file"].get<std::string>() << "\n"
                      << command_below("  ", "replay it", f["replay"].get<std::string>()) << std::flush;
          }
        }
      }
      std::vector<ForkOutcome> forks;
      if (forker.enabled()) forks = forker.after_seed(o, share["forking"]);  // share["forking"] exists only then
      for (ForkOutcome& fork : forks) {
        if (fork.run.passed) continue;
        json f = {{"profile", profile}, {"seed", seed}, {"property", fork.run.signature},
                  {"detail", fork.run.result.failures[0].detail},
                  {"step_kind", failing_step_kind(fork.run.scenario, fork.run.result.failures[0].step)},
                  {"fork", {{"point", fork.point}, {"fork", fork.fork}}}};
        fork.run.result.failures[0].add_rule_fields(f);
        if (shrinks < static_cast<uint64_t>(a.max_shrinks) && fork.run.loaded) {
          ++shrinks;
          add_file(f, write_failure_file(fork.run, profile + "-fork" + std::to_string(fork.fork), variant, a.out_dir,
                                        a.engine));
          if (!a.as_json) {
            if (!a.quiet) ProgressLine::erase(a.progress_terminal);
            std::cout << "FAIL " << profile << " seed " << seed << " forked at " << fork.point << " (fork "
                      << fork.fork << "): " << fork.run.signature << " — " << f["detail"].get<std::string>()
                      << "\n  shrunk to " << f["steps"] << " steps: " << f["file"].get<std::string>() << "\n"
                      << command_below("  ", "replay it", f["replay"].get<std::string>()) << std::flush;
          }
        }
        share["fork_failures"].push_back(f);
      }
      if (progress) progress->update(tally ? tally->done() : done, tally ? tally->failed() : failed, elapsed_s());
      if (a.time_budget_s > 0 && elapsed_s() > a.time_budget_s) out_of_time = true;
    }
  }
  journal.checkpoint(true);
  share["out_of_time"] = out_of_time;
  if (stopped) share["interrupted"] = true;
  return share;
}

Outcome run_campaign(const CampaignOptions& a, impl::Variant variant, uint64_t jobs, const WallClock& wall,
                 json* summary, const std::vector<json>& journaled) {
  if (!parse_shard(a.shard)) {
    std::cerr << "error: --shard: expected I/N with 0 <= I < N, got " << a.shard << "\n";
    return Outcome::bad_input;
  }
  if (a.engine == StorageEngineKind::sqlite) {
    if (auto refusal = engine_refuses_campaign(a.engine, a.profile, variant)) {
      std::cerr << "error: " << *refusal << "\nnothing was run (exit 2)\n";
      return Outcome::bad_input;
    }
  }
  if (a.engine == StorageEngineKind::postgres) {
    if (auto refusal = engine_refuses_campaign(a.engine, a.profile, variant)) {
      std::cerr << "error: " << *refusal << "\nnothing was run (exit 2)\n";
      return Outcome::bad_input;
    }
    if (a.profile == "all" && !a.quiet) {
      std::cerr << "note: --storage postgres: profile all runs every profile but power-loss (power loss is "
                   "SQLite's VFS), and the PostgreSQL profile bundles\n";
    }
    // Before any worker forks: each attaches to this server (sim/world/pg_process.h).
    if (auto problem = start_pg_process_problem({a.pg_url, static_cast<int64_t>(jobs)})) {
      std::cerr << "error: " << *problem << "\nnothing was run (exit 2)\n";
      return Outcome::bad_input;
    }
  }
  if (a.journal && a.journal_run == 0) {
    if (auto error = start_journal(a, variant)) {
      std::cerr << "error: --out: " << *error << "\nnothing was run (exit 2)\n";
      return Outcome::bad_input;
    }
  }
  stop_on_interrupt();
  const double start = wall();
  // An earlier run's journaled seeds merge with this run's like another worker's.
  std::vector<json> parts = journaled;
  const size_t first_run_part = parts.size();
  std::optional<std::vector<json>> ran;
  if (jobs <= 1) {
    ran.emplace(1, run_share(a, variant, 0, 1, wall));
  } else {
    SharedTally tally(jobs);
    ran = run_forked(jobs, jobs, [&](size_t j) { return run_share(a, variant, j, jobs, wall, &tally); });
  }
  if (!a.quiet) ProgressLine::erase(a.progress_terminal);
  end_stop_on_interrupt();
  if (ran) parts.insert(parts.end(), ran->begin(), ran->end());
  const bool interrupted = std::any_of(parts.begin() + static_cast<std::ptrdiff_t>(first_run_part), parts.end(),
                                       [](const json& part) { return part.value("interrupted", false); });
  // A worker ended by a second Ctrl-C is the same interruption, its finished seeds journaled.
  if (interrupted || (!ran && stop_requested())) {
    std::optional<uint64_t> seeds_ran;
    if (ran) {
      seeds_ran = 0;
      for (size_t i = first_run_part; i < parts.size(); ++i) *seeds_ran += parts[i]["seeds_run"].get<uint64_t>();
    }
    std::cerr << interrupted_note(a, seeds_ran);
    return Outcome::interrupted;
  }
  if (!ran) {
    std::cerr << "error: a campaign worker failed\n";
    return Outcome::bad_input;
  }
  for (json& part : parts) {
    if (!part.contains("engine_error")) continue;
    const json& e = part["engine_error"];
    std::cerr << "error: " << e["profile"].get<std::string>() << " seed " << e["seed"].get<uint64_t>() << ": "
              << reports::terminal_text(e["message"].get<std::string>()) << "\nnot a finding: the storage engine failed under the campaign";
    if (a.journal) {
      std::cerr << ". The seeds that finished are journaled; to run the rest"
                << (a.pg_url.empty() ? "" : " (with --pg-url naming the server again)") << ":\n  "
                << resume_command(a);
    }
    std::cerr << "\n";
    return Outcome::bad_input;
  }
  const double wall_s = std::max(wall() - start, 1e-9);
  return report_campaign(parts, a, impl::variant_name(variant), jobs, wall_s, summary);
}

}  // namespace qdt::sim
