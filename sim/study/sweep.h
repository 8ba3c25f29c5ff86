#pragma once
// Parameter sweeps (qdt explore SWEEP.json, docs/semantics.md §4): a sweep file names a base
// (a scenario file or a workload profile), knobs to vary, seeds per point and
// metrics. This header loads and validates a sweep file (the JSON Schema
// scenarios/schema/sweep.schema.json first, then code rules) and names the
// metrics a run reports. A loaded sweep's points, the scenario of one
// (point, seed) and a point's aggregate are sweep_points.h; running and
// writing the outputs is sweep_run.h.
// Pure functions of their inputs: no clock, no I/O but reading the files named.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "impl/variant.h"
#include "sim/scenario/scenario.h"

namespace qdt::sim {

inline constexpr uint64_t kMaxSweepSeeds = 10'000;    // per point
inline constexpr uint64_t kMaxSweepPoints = 1'000;    // the cartesian product of the knobs
inline constexpr uint64_t kMaxSweepRuns = 100'000;    // points x seeds
inline constexpr uint64_t kMaxKnobValues = 1'000;     // one knob, a list or a range

struct Knob {
  std::string path;                  // dotted, as written: "queues.*.dedupWindowSeconds"
  std::vector<std::string> segments;  // "queues", "*", "dedupWindowSeconds"
  std::vector<nlohmann::json> values;  // a list as written, or a range expanded
};

struct Sweep {
  std::string file;
  std::string name;
  std::string description;
  std::string profile;        // base: a profile, or
  std::string scenario_file;  // base: a scenario file (resolved against the sweep's folder)
  nlohmann::json scenario_doc;  // that file's document
  std::vector<Knob> knobs;    // in path order (the vary object's key order)
  uint64_t seeds = 1;
  uint64_t first_seed = 1;
  std::vector<std::string> metrics;
  impl::Variant variant = impl::Variant::none;
  // "expectations": false when only the properties judge, not the base scenario's expect block.
  bool check_expectations = true;
  nlohmann::json doc;  // the sweep as written
};

struct SweepLoad {
  std::optional<Sweep> sweep;
  std::vector<LoadError> errors;  // non-empty exactly when !sweep
};

SweepLoad load_sweep_text(const std::string& text, const std::string& file);
SweepLoad load_sweep_file(const std::string& file);

const std::string& sweep_schema_text();

// Every metric name a run reports: the keys of its metrics object, nested
// ones joined with dots ("cache.vouched"), sorted.
const std::vector<std::string>& known_metric_names();

// The value of a dotted metric name in a result's metrics object; nullopt
// when absent or not a number.
std::optional<double> metric_value(const nlohmann::json& metrics, const std::string& name);

}  // namespace qdt::sim
