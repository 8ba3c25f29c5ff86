#pragma once
// The schedule flags of qdt replay and qdt check (--schedule random|pct,
// --pct-depth D, --pct-steps K) and the explore-schedules subcommand, as
// CLI11 sees them. Lives in the qdt executable, beside main.cpp.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "sim/cli/schedule_command.h"
#include "sim/schedule/schedule_config.h"

namespace qdt::sim {

struct ScheduleFlags {
  std::string mode;  // "" keeps the scenario's world.schedule
  uint32_t pct_depth = ScheduleConfig::kPctDepthDefault;
  uint64_t pct_steps = 0;
  CLI::Option* depth_option = nullptr;
  CLI::Option* steps_option = nullptr;
};

void add_schedule_flags(CLI::App& command, ScheduleFlags& flags);
// After parsing: the override, if --schedule was given; an error message
// in `error` for --pct-depth or --pct-steps without --schedule pct.
std::optional<ScheduleConfig> schedule_override(const ScheduleFlags& flags, std::string& error);

// " --schedule pct --pct-depth 3" for a printed replay command; "" for none.
std::string schedule_flags_text(const std::optional<ScheduleConfig>& schedule);

// Registers `explore-schedules` on `app`; fills `options` when parsed.
CLI::App* add_explore_schedules(CLI::App& app, ExploreSchedulesOptions& options, std::string& variant_name,
                                const std::vector<std::string>& variant_choices);

}  // namespace qdt::sim
