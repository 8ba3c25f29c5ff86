#include "sim/schedule/schedule_config.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/nearest_name.h"
#include "sim/schedule/pct_policy.h"

namespace qdt::sim {

using json = nlohmann::json;

const char* schedule_mode_name(ScheduleMode mode) {
  switch (mode) {
    case ScheduleMode::random: return "random";
    case ScheduleMode::pct: return "pct";
    case ScheduleMode::choices: return "choices";
    case ScheduleMode::fork: return "fork";
  }
  return "?";
}

json ScheduleConfig::to_json() const {
  json j = {{"mode", schedule_mode_name(mode)}};
  if (mode == ScheduleMode::pct) {
    j["pct_depth"] = pct_depth;
    j["pct_steps"] = pct_steps;
  }
  if (mode == ScheduleMode::choices) j["choices"] = choices;
  if (mode == ScheduleMode::fork) {
    j["fork_after_picks"] = fork_after_picks;
    j["fork_seed"] = fork_seed;
  }
  return j;
}

std::vector<std::pair<std::string, std::string>> parse_schedule(const json& j, const std::string& path,
                                                                ScheduleConfig& out) {
  std::vector<std::pair<std::string, std::string>> errors;
  if (!j.is_object()) return {{path, "expected an object"}};
  const std::vector<std::string> fields = {"mode", "pct_depth", "pct_steps", "choices", "fork_after_picks", "fork_seed"};
  for (const auto& [key, value] : j.items()) {
    if (std::find(fields.begin(), fields.end(), key) == fields.end()) {
      errors.emplace_back(path + "/" + key, "unknown field" + did_you_mean(key, fields));
    }
  }
  ScheduleConfig c;
  if (const auto it = j.find("mode"); it == j.end()) {
    errors.emplace_back(path + "/mode", "required (\"random\", \"pct\", \"choices\" or \"fork\")");
  } else if (!it->is_string() || (*it != "random" && *it != "pct" && *it != "choices" && *it != "fork")) {
    errors.emplace_back(path + "/mode", "expected \"random\", \"pct\", \"choices\" or \"fork\"");
  } else {
    c.mode = *it == "pct"       ? ScheduleMode::pct
             : *it == "choices" ? ScheduleMode::choices
             : *it == "fork"    ? ScheduleMode::fork
                                : ScheduleMode::random;
  }
  auto integer = [&](const char* key, uint64_t lo, uint64_t hi, auto& field) {
    const auto it = j.find(key);
    if (it == j.end()) return;
    if (!it->is_number_unsigned() || it->get<uint64_t>() < lo || it->get<uint64_t>() > hi) {
      errors.emplace_back(path + "/" + key,
                          "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      return;
    }
    field = static_cast<std::remove_reference_t<decltype(field)>>(it->get<uint64_t>());
  };
  integer("pct_depth", 1, PctPolicy::kDepthMax, c.pct_depth);
  integer("pct_steps", 0, ScheduleConfig::kPctStepsMax, c.pct_steps);
  integer("fork_after_picks", 0, ScheduleConfig::kPctStepsMax, c.fork_after_picks);
  integer("fork_seed", 0, ScheduleConfig::kForkSeedMax, c.fork_seed);
  if ((j.contains("fork_after_picks") || j.contains("fork_seed")) && c.mode != ScheduleMode::fork) {
    errors.emplace_back(path, "fork_after_picks and fork_seed apply to mode \"fork\" only");
  }
  if ((j.contains("pct_depth") || j.contains("pct_steps")) && c.mode != ScheduleMode::pct) {
    errors.emplace_back(path, "pct_depth and pct_steps apply to mode \"pct\" only");
  }
  if (const auto it = j.find("choices"); it != j.end()) {
    if (c.mode != ScheduleMode::choices) errors.emplace_back(path + "/choices", "applies to mode \"choices\" only");
    if (!it->is_array() || it->size() > ScheduleConfig::kChoicesMax) {
      errors.emplace_back(path + "/choices", "expected an array of fiber ordinals (at most " +
                                                 std::to_string(ScheduleConfig::kChoicesMax) + ")");
    } else {
      for (size_t i = 0; i < it->size(); ++i) {
        if (!(*it)[i].is_number_unsigned()) {
          errors.emplace_back(path + "/choices/" + std::to_string(i), "expected a non-negative integer");
          break;
        }
        c.choices.push_back((*it)[i].get<uint64_t>());
      }
    }
  } else if (c.mode == ScheduleMode::choices) {
    errors.emplace_back(path + "/choices", "required for mode \"choices\"");
  }
  if (errors.empty()) out = std::move(c);
  return errors;
}

}  // namespace qdt::sim
