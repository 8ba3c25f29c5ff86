#pragma once
// Merging campaign summaries — of the worker processes of one run, or of
// shards run apart and saved with --json (qdt check --merge) — and printing
// the campaign summary. The campaign digest (xxh3-128 of every seed's
// "profile seed trace_hash" line, sorted) does not depend on how the seeds
// were split.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "sim/base/outcome.h"
#include "sim/campaign/campaign_options.h"
#include "sim/scenario/scenario.h"

namespace qdt::sim {

// Adds one run's integer metrics (docs/semantics.md §4, and the cache's as cache_*) to `totals`.
void add_metrics(nlohmann::json& totals, const nlohmann::json& metrics);

// Merges `parts` (run_share summaries, or --json campaign summaries) and
// prints the summary: JSON with options.as_json, else two lines of text.
// `jobs` and `wall_s` are only reported. Exit code as docs/semantics.md §4. The merged
// summary (as --json prints it) is also stored in `summary` when given.
Outcome report_campaign(const std::vector<nlohmann::json>& parts, const CampaignOptions& options,
                    const std::string& variant_text, uint64_t jobs, double wall_s,
                    nlohmann::json* summary = nullptr);

// One shard's --json summary, checked against the summary schema
// (campaign_schemas.h: every field report_campaign and the campaign page
// read, and counts small enough that summing a thousand shards cannot
// overflow) and then its code rules, or the first fault with its JSON path.
// Pure: `file` only names the input in the error.
inline constexpr size_t kMaxMergeFiles = 1000;
std::variant<nlohmann::json, LoadError> read_summary_text(const std::string& text, const std::string& file);

// qdt check --merge FILE...: reads the shards' --json summaries (one variant)
// and reports them merged. Bad input: exit 2 with the file, a JSON path and
// the reason.
Outcome merge_summaries(const std::vector<std::string>& files, const CampaignOptions& options,
                    nlohmann::json* summary = nullptr);

}  // namespace qdt::sim
