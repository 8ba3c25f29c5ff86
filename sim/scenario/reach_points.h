#pragma once
// The catalogue of reachability points (impl/reached.h): every name a
// QDT_REACHED may carry, with what reaching it means. Points marked in the
// code (impl/, sim/) and points derived from a run's history after it ended
// (sim/scenario/history_reach.h) share the one list; a campaign reports how many seeds
// reached each (sim/scenario/coverage.h).
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace qdt::sim {

struct ReachPoint {
  std::string_view name;
  std::string_view means;
};

// In catalogue order (grouped by area), names unique.
std::span<const ReachPoint> reach_points();

// The catalogue index of `name`, nullopt when it is not a point.
std::optional<size_t> reach_index(std::string_view name);

// What a campaign ran on, for the points that cannot happen there.
struct ReachContext {
  bool postgres = false;       // the storage engine
  bool foreign_cache = false;  // --cache-impl or --cache-lib
};

// Why `point` cannot happen in a campaign run in `context`; nullopt when it can.
std::optional<std::string_view> cannot_happen(const ReachPoint& point, const ReachContext& context);

}  // namespace qdt::sim
