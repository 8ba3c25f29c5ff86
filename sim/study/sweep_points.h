#pragma once
// A loaded sweep's points (sweep.h loads the file): the cartesian product of
// its knobs, the scenario document of one (point, seed), the checks that
// every point makes a scenario the engine can run, and a point's aggregate
// over its seeds. Running them is sweep_run.h.
// Pure functions of their inputs: no clock, no I/O.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"
#include "sim/study/sweep.h"
#include "sim/world/world_config.h"

namespace qdt::sim {

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
