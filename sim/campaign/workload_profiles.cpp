#include "sim/campaign/workload.h"

#include <algorithm>
#include <map>

namespace qdt::sim {

using json = nlohmann::json;

const std::vector<std::string>& profile_names() {
  static const std::vector<std::string> names = {"default",     "retry-storm", "window-edge",    "retention",
                                                 "reconfigure", "skew",        "multi-broker",   "cache-pressure",
                                                 "swarm",       "storage-faults", "power-loss"};
  return names;
}

const std::vector<std::string>& postgres_profile_names() {
  static const std::vector<std::string> names = {"bundles"};
  return names;
}

bool profile_needs_power_loss(const std::string& profile) { return profile == "power-loss"; }

bool profile_needs_postgres(const std::string& profile) {
  const auto& names = postgres_profile_names();
  return std::find(names.begin(), names.end(), profile) != names.end();
}

bool variant_runs_profile(impl::Variant variant, const std::string& profile) {
  return !(variant == impl::Variant::probe_outside_lock && profile_needs_postgres(profile));
}

std::vector<std::string> profiles_to_run(const std::string& profile, bool sqlite, impl::Variant variant) {
  if (profile != "all") return {profile};
  std::vector<std::string> names;
  for (const std::string& name : profile_names()) {
    if (sqlite || !profile_needs_power_loss(name)) names.push_back(name);
  }
  if (!sqlite) {
    for (const std::string& name : postgres_profile_names()) {
      if (variant_runs_profile(variant, name)) names.push_back(name);
    }
  }
  return names;
}

bool is_profile(const std::string& name) {
  const auto& names = profile_names();
  return std::find(names.begin(), names.end(), name) != names.end() || profile_needs_postgres(name);
}

const std::vector<std::string>& generator_knob_names() {
  static const std::vector<std::string> names = {"partitions",     "keys",          "steps", "skew_ms",
                                                 "retry_attempts", "retry_backoff_ms", "retry_timeout_ms", "advance_per_mille"};
  return names;
}

std::optional<std::string> set_generator_knob(GeneratorOverrides& o, const std::string& name, const json& value) {
  struct Slot {
    std::optional<int64_t> GeneratorOverrides::*field;
    int64_t lo, hi;
  };
  static const std::map<std::string, Slot> slots = {
      {"partitions", {&GeneratorOverrides::partitions, 1, 64}},
      {"keys", {&GeneratorOverrides::keys, 1, 10'000}},
      {"steps", {&GeneratorOverrides::steps, 1, 1'000}},
      {"skew_ms", {&GeneratorOverrides::skew_ms, -3'600'000, 3'600'000}},
      {"retry_attempts", {&GeneratorOverrides::retry_attempts, 1, 100}},
      {"retry_backoff_ms", {&GeneratorOverrides::retry_backoff_ms, 0, 3'600'000}},
      {"retry_timeout_ms", {&GeneratorOverrides::retry_timeout_ms, 1, 3'600'000}},
      {"advance_per_mille", {&GeneratorOverrides::advance_per_mille, 0, 1000}}};
  const auto it = slots.find(name);
  if (it == slots.end()) {
    std::string names;
    for (const auto& n : generator_knob_names()) names += (names.empty() ? "" : ", ") + n;
    return "unknown generator knob \"" + name + "\" (one of " + names + ")";
  }
  const Slot& slot = it->second;
  if (!value.is_number_integer() || value.get<int64_t>() < slot.lo || value.get<int64_t>() > slot.hi) {
    return "generator." + name + " takes an integer in " + std::to_string(slot.lo) + ".." + std::to_string(slot.hi) +
           ", not " + value.dump();
  }
  o.*slot.field = value.get<int64_t>();
  return std::nullopt;
}

}  // namespace qdt::sim
