#pragma once
// Running a campaign's seeds (qdt check): one process, or `jobs` forked
// worker processes that each run a fixed share of the seeds and send their
// summary back through a pipe. The split is a function of the seed alone
// (seed % shard_count picks the shard, (seed / shard_count) % workers the
// worker), so the merged digest is the same whatever the number of jobs.
// Called from the main fiber of the command line's thread, before any world.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "impl/variant.h"
#include "sim/base/outcome.h"
#include "sim/base/shared_tally.h"
#include "sim/campaign/campaign_options.h"

namespace qdt::sim {

struct Shard {
  uint64_t index = 0;
  uint64_t count = 1;
};

// "I/N" with 0 <= I < N; "" is the whole campaign (0/1); nullopt otherwise.
std::optional<Shard> parse_shard(const std::string& text);

// Why `engine` cannot run campaign seeds of `profile` ("all" included) under
// `variant`; nullopt: it can. Every command that runs generated seeds asks before anything runs
// (docs/semantics.md §9): PostgreSQL has no power loss, and some variants
// need SQL of their own.
std::optional<std::string> engine_refuses_campaign(StorageEngineKind engine, const std::string& profile,
                                                  impl::Variant variant);

// One worker's share: every profile's seeds of this shard that fall to
// `worker` of `workers`. Failures are shrunk (at most options.max_shrinks)
// and written as files. Returns the share's summary with its raw counters and
// per-seed trace hashes, for campaign_merge.h to merge. `tally` (when
// given) gathers every worker's counts for the progress line.
nlohmann::json run_share(const CampaignOptions& options, impl::Variant variant, uint64_t worker, uint64_t workers,
                         const WallClock& wall, SharedTally* tally = nullptr);

// The whole of qdt check (without --merge): validates the shard, runs the
// shares in `jobs` processes, merges and prints the summary. Returns the exit
// outcome; the merged summary goes to `summary` when given.
// `journaled`: share summaries of an earlier run of the same campaign
// (--resume), merged with this run's; with options.journal and journal_run 0
// a fresh journal is started below options.out_dir.
Outcome run_campaign(const CampaignOptions& options, impl::Variant variant, uint64_t jobs, const WallClock& wall,
                     nlohmann::json* summary = nullptr, const std::vector<nlohmann::json>& journaled = {});

}  // namespace qdt::sim
