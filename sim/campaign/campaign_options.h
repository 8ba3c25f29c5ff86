#pragma once
// The options of one campaign (qdt check), and the wall-clock seam campaigns
// read time through. Wall time never reaches a result or a trace: it only
// paces progress lines, enforces --time-budget and divides rates. The
// command line (main.cpp) is the one place that reads the real clock.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/world/world_config.h"

namespace qdt::sim {

struct CampaignOptions {
  uint64_t seeds = 100;       // per profile
  uint64_t first_seed = 1;
  std::string profile = "default";  // a profile name, or "all"
  std::string out_dir = "reports/out/failures";
  std::string shard;  // "I/N", or "" for the whole campaign
  double time_budget_s = 0;  // 0: no budget
  bool as_json = false;
  bool quiet = false;
  // Standard error is a terminal: progress is one line redrawn in place
  // (progress_line.h). How it is shown, never what runs.
  bool progress_terminal = false;
  // --unchecked: brokers' connections without checked mode (throughput
  // figures). Not campaign-defining: traces and the digest are the same.
  bool checked_mode = true;
  int max_shrinks = 3;
  // --interleave on|off: sets world.storage.interleave in every generated
  // scenario (so failure files carry it); unset keeps the generator's choice.
  std::optional<bool> interleave;
  // --schedule pct ...: the world.schedule object set in every generated
  // scenario (so failure files replay under it); null keeps random.
  nlohmann::json schedule;
  // The same schedule as command-line flags, each with a leading space, for
  // the commands that re-run one seed (seed_command.h).
  std::string schedule_flags;
  // The progress journal (campaign_journal.h): written below out_dir when
  // `journal`; `journal_run` names this run's parts; seeds in `skip` (profile,
  // seed) were finished by an earlier run of the campaign and are not run again.
  bool journal = false;
  uint64_t journal_run = 0;
  std::set<std::pair<std::string, uint64_t>> skip;
  // Reachability coverage (sim/scenario/coverage.h): a row per point in the text
  // summary (--coverage); exit 1 when a point of `required_points` was never
  // reached (--require-coverage, the list already checked against the catalogue).
  bool coverage_table = false;
  // Forking at rare states (sim/campaign/campaign_forks.h): 0 switches it off.
  double fork_rare_share = 0;
  uint64_t forks = 16;
  bool require_coverage = false;
  std::vector<std::string> required_points;
  // --storage and --pg-url (docs/semantics.md §9). The engine defines the
  // campaign (trace hashes differ between engines) and is journaled; the
  // server is where it runs, taken from --resume's own command line.
  StorageEngineKind engine = StorageEngineKind::sqlite;
  std::string pg_url;
  // Set by --merge: the foreign cache module the shards ran (their
  // summaries' "cache_module"; null for qdt's own), reported in place of
  // this process's own choice, which merged nothing.
  std::optional<nlohmann::json> merged_cache_module;
};

// Seconds since an arbitrary, fixed start.
using WallClock = std::function<double()>;

}  // namespace qdt::sim
