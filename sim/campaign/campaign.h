#pragma once
// Random campaigns (qdt check): one generated scenario per seed, judged by
// every property. This header is the per-seed core; around it:
//   shrink.h          reduces a failing scenario while it fails the same way,
//   failure_file.h    writes a shrunk failure as a replayable scenario file,
//   campaign_jobs.h   runs a campaign's seeds in worker processes,
//   campaign_merge.h  merges workers' or shards' summaries and prints them.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "impl/variant.h"
#include "sim/world/world_config.h"
#include "sim/scenario/run_result.h"

namespace qdt::sim {

struct SeedOutcome {
  uint64_t seed = 0;
  bool passed = false;
  std::string signature;  // the first failure's property, or "expectation"
  nlohmann::json scenario;
  // false: the scenario did not load, and `result` holds one failure of kind "generator".
  bool loaded = true;
  RunResult result;
};

// `interleave`, when set, overrides world.storage.interleave of the generated
// scenario; `schedule`, when not null, is set as its world.schedule.
// `checked_mode` false runs without cache-transparency's re-probe (qdt check
// --unchecked, for throughput): same traces, one property less informed.
SeedOutcome check_seed(uint64_t seed, const std::string& profile, impl::Variant variant,
                       std::optional<bool> interleave = std::nullopt, const nlohmann::json& schedule = nullptr,
                       bool checked_mode = true, StorageEngineKind engine = StorageEngineKind::sqlite);

// The first failure's property name, or "expectation"; "" when passed.
std::string failure_signature(const RunResult& result);

// Loads and runs a scenario document under `variant`; its result, or none
// when the document does not load.
// `check_schema` false: a generated document, trusted to satisfy the JSON Schema.
// `step_responses` false: the result's "steps" stays empty (RunOptions).
// `engine`: the command line's --storage (RunOptions::engine).
std::optional<RunResult> run_document(const nlohmann::json& doc, impl::Variant variant, bool checked_mode = true,
                                      bool check_schema = true, bool step_responses = true,
                                      StorageEngineKind engine = StorageEngineKind::sqlite);

// Every step, children included.
int count_steps(const nlohmann::json& scenario);

}  // namespace qdt::sim
