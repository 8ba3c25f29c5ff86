#pragma once
// A scenario (docs/semantics.md §3), loaded and validated whole before anything runs.
// JSON is parsed once here; the runner never touches scenario JSON text again.
#include <any>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/base/load_error.h"
#include "sim/faults/storage_faults.h"
#include "sim/world/world_config.h"

namespace qdt::sim {

struct StepKind;  // sim/scenario/step_kinds.h: a kind's reading, running and timeline text

// The fields every step has; its kind's own fields (e.g. PushArgs in
// sim/scenario/step_push.h) are in `args`, set by the kind's reader.
struct Step {
  const StepKind* kind = nullptr;
  std::string id;    // as written, or "#<path>" when the step has none
  std::string path;  // JSON path of the step, for messages ("/steps/3")
  uint32_t broker = 0;         // the broker the step addresses (push, skew, crash_broker, cache, evict_cache)
  std::vector<Step> children;  // parallel, sequence, repeat
  std::any args;

  template <typename Args>
  const Args& as() const { return std::any_cast<const Args&>(args); }
};

struct ItemExpect {
  std::string status;
  std::optional<std::string> message_id;  // "@STEP/INDEX" | "zero" | "new" | UUID
};

struct StepExpect {
  std::string path;  // "/expect/<id>"
  bool rejected = false;
  std::optional<std::vector<ItemExpect>> items;    // push
  std::optional<std::string> ack_status;           // ack
  std::optional<int64_t> count;                    // read
  std::optional<std::vector<std::string>> transaction_ids;  // read
};

struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  uint64_t seed = 1;
  WorldConfig world;
  std::vector<std::pair<std::string, nlohmann::json>> queues;  // name -> options, in name order
  std::vector<Step> steps;
  std::map<std::string, StepExpect> expect;
  std::vector<std::pair<std::pair<std::string, std::string>, int64_t>> expect_stored;  // (queue, partition) -> N
  // The JSON path of the first queue, partition or group name holding a NUL
  // (PostgreSQL's text ends there, merging two names); empty: none does.
  std::string nul_name_path;
};

// Bounds of a script as run, with repeat steps unrolled: a scenario cannot
// ask for an unbounded run (docs/semantics.md §4: bad input gets a clear error).
inline constexpr int64_t kMaxRepeatTimes = 100'000;
inline constexpr int64_t kMaxAdvanceMs = int64_t{10} * 365 * 24 * 3600 * 1000;  // ten years of virtual time
inline constexpr int64_t kMaxExecutedSteps = 2'000'000;
// Push deliveries (each step's retry.attempts) and the items' JSON bytes,
// unrolled: the wall time and memory a run can take.
inline constexpr int64_t kMaxExecutedAttempts = 4'000'000;
inline constexpr int64_t kMaxPushedItemsBytes = int64_t{256} << 20;
// crash_storage steps, unrolled: each reopens storage, checks its integrity
// and reads every partition it recovered, so both their number and their
// number times the items pushed (what each may recover) are bounded.
inline constexpr int64_t kMaxStorageCrashes = 1'000;
inline constexpr int64_t kMaxRecoveredItemsBytes = int64_t{64} << 20;

struct LoadResult {
  std::optional<Scenario> scenario;
  std::vector<LoadError> errors;  // non-empty exactly when !scenario
};

LoadResult load_scenario_text(const std::string& text, const std::string& file);
LoadResult load_scenario_file(const std::string& file);
// A document already parsed and bounded (a campaign's generated scenario):
// the same semantic checks; `check_schema` false skips the JSON Schema, a
// large share of a campaign seed's cost (the property
// Workload.GeneratedScenariosAlwaysValidate holds every profile to it).
LoadResult load_scenario_document(const nlohmann::json& doc, const std::string& file, bool check_schema);

// The name the scenario format writes for the step's kind ("push", "crash_broker").
std::string op_name(const Step& step);

// The JSON Schema of the format, as shipped in scenarios/schema/.
const std::string& scenario_schema_text();

// Structural validation of a parsed document against that schema alone.
std::vector<LoadError> schema_errors(const nlohmann::json& doc, const std::string& file);

}  // namespace qdt::sim
