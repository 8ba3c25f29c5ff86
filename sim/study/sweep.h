#pragma once
// Parameter sweeps (qdt explore SWEEP.json, docs/semantics.md §4): a sweep file names a base
// (a scenario file or a workload profile), knobs to vary, seeds per point and
// metrics. This header loads and validates a sweep (the JSON Schema
// scenarios/schema/sweep.schema.json first, then code rules), expands its
// points, builds the scenario document of one (point, seed) and aggregates a
// point's metrics. Running and writing the outputs is sweep_run.h.
// Pure functions of their inputs: no clock, no I/O but reading the files named.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "impl/variant.h"
#include "sim/world/world_config.h"
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

// A point: one value index per knob. Points enumerate the cartesian product
// with the last knob varying fastest.
using Point = std::vector<size_t>;
std::vector<Point> expand_points(const Sweep& sweep);
uint64_t point_count(const Sweep& sweep);

// {"path": value, ...} of a point, for outputs and messages.
nlohmann::json point_values(const Sweep& sweep, const Point& point);
// "world.brokers=2, world.cache.budget_bytes=65536"
std::string point_text(const Sweep& sweep, const Point& point);

// Sets `value` at the dotted path in `doc`, creating missing objects; `*`
// matches every key of the object found there. An error when a segment meets
// a non-object, or `*` matches nothing.
std::optional<std::string> apply_knob(nlohmann::json& doc, const std::vector<std::string>& segments,
                                      const nlohmann::json& value);

// The scenario document of (point, seed): the base (generated or the file's
// document) with `seed` set and every knob applied; or the reason it cannot be built.
struct PointDocument {
  nlohmann::json doc;
  std::optional<std::string> error;
};
PointDocument point_document(const Sweep& sweep, const Point& point, uint64_t seed);

// Builds and loads the first seed's document of every point, without running
// anything: an error names the sweep file, the knob ("/vary/PATH", or "/vary"
// when the scenario's complaint names no knob) and the point.
std::vector<LoadError> check_points(const Sweep& sweep);

// What `engine` cannot run of the sweep (docs/semantics.md §9): its profile
// (the campaign's refusal) and every point's first-seed scenario, as
// engine_refuses says; each error names the sweep file. Empty for SQLite.
std::vector<LoadError> engine_refusals(const Sweep& sweep, StorageEngineKind engine);

// One run's share of a point: the requested metrics in sweep order.
struct SeedValues {
  uint64_t seed = 0;
  bool passed = true;
  std::string failure;  // the first failure's property, or "expectation"
  std::string trace_hash;
  std::vector<double> values;
};

// mean, min, max per metric, the failure count and the raw per-seed values,
// as the "points" entries of NAME.json. `runs` are in seed order.
nlohmann::json aggregate_point(const Sweep& sweep, const Point& point, size_t index,
                               const std::vector<SeedValues>& runs);

}  // namespace qdt::sim
