#pragma once
// How a run picks among ready fibers (scenario `world.schedule`, or qdt
// replay/check --schedule): `random` (uniform, the default, traces as they
// always were), `pct` (sim/schedule/pct_policy.h, depth and steps), or `choices` (a
// written-down schedule, sim/schedule/choice_policy.h, as explore-schedules writes
// for a failure), or `fork` (sim/schedule/fork_policy.h: the random schedule for the
// first fork_after_picks picks, then a fresh generator seeded fork_seed — a
// campaign's fork of a run at a rare state, qdt check --fork-rare).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace qdt::sim {

enum class ScheduleMode { random, pct, choices, fork };

struct ScheduleConfig {
  static constexpr uint32_t kPctDepthDefault = 3;
  static constexpr uint64_t kPctStepsMax = 1'000'000'000;
  static constexpr size_t kChoicesMax = 10'000'000;
  static constexpr uint64_t kForkSeedMax = (uint64_t{1} << 53) - 1;  // exact in every JSON reader
  ScheduleMode mode = ScheduleMode::random;
  uint32_t pct_depth = kPctDepthDefault;  // 1..PctPolicy::kDepthMax
  // PCT's k: change points are drawn from steps 1..pct_steps; 0 learns it
  // from a first run of the scenario (its scheduler picks).
  uint64_t pct_steps = 0;
  std::vector<uint64_t> choices;  // mode choices: fiber ordinals, one per choice point
  uint64_t fork_after_picks = 0;  // mode fork: picks made as the random schedule makes them
  uint64_t fork_seed = 0;         // mode fork: the generator of every pick after them

  // The `world.schedule` object, or nothing for random (so scenario files
  // and generated scenarios stay as they were).
  nlohmann::json to_json() const;
};

const char* schedule_mode_name(ScheduleMode mode);

// Reads `world.schedule`; each error is (JSON path below `path`, reason).
std::vector<std::pair<std::string, std::string>> parse_schedule(const nlohmann::json& j, const std::string& path,
                                                                ScheduleConfig& out);

}  // namespace qdt::sim
