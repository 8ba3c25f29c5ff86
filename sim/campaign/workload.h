#pragma once
// Random workloads for campaigns (docs/semantics.md §4 profiles): a seed and a profile give
// a scenario document, which then goes through the same loader as a file.
// Generators bias towards collisions: few keys, few partitions, repeats near
// window edges, retries that race their own first attempt.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "impl/variant.h"

namespace qdt::sim {

// The profiles every engine runs but power-loss, which only SQLite runs.
const std::vector<std::string>& profile_names();
// The profiles only PostgreSQL runs (bundles: row locks, docs/semantics.md §9.5).
const std::vector<std::string>& postgres_profile_names();
bool is_profile(const std::string& name);
// The profiles `profile` names ("all" or one). On SQLite (`sqlite`) "all"
// leaves out the PostgreSQL profiles; on PostgreSQL, which loses no power
// (docs/semantics.md §9.1), it leaves out power-loss.
// Under `variant`, "all" also leaves out the profiles the variant cannot run
// (variant_runs_profile).
std::vector<std::string> profiles_to_run(const std::string& profile, bool sqlite,
                                         impl::Variant variant = impl::Variant::none);
// Whether `variant` can run `profile`'s worlds: probe-outside-lock probes each
// segment in a transaction of its own, which a bundle (the bundles profile)
// does not have.
bool variant_runs_profile(impl::Variant variant, const std::string& profile);
// The profiles that need an engine that loses power (crash_storage).
bool profile_needs_power_loss(const std::string& profile);
bool profile_needs_postgres(const std::string& profile);

// Generator knobs a sweep may fix (qdt explore, "generator.NAME" paths): each
// replaces what the profile would draw, so a study can hold one dimension of
// a random workload still while the rest stays random. Unset: as drawn.
struct GeneratorOverrides {
  std::optional<int64_t> partitions;        // partitions per queue, 1..64
  std::optional<int64_t> keys;              // distinct transactionIds, 1..10 000
  std::optional<int64_t> steps;             // top-level steps, 1..1 000
  std::optional<int64_t> skew_ms;           // every skew step sets exactly this offset (broker ahead when > 0)
  std::optional<int64_t> retry_attempts;    // every retrying push makes exactly this many attempts, 1..100
  std::optional<int64_t> retry_backoff_ms;  // the pause between attempts, 0..3 600 000
  std::optional<int64_t> retry_timeout_ms;  // the wait for a response, 1..3 600 000
  std::optional<int64_t> advance_per_mille;  // chance that a step advances virtual time, 0..1000
};

// The knob names ("partitions", ...) in a fixed order, for messages.
const std::vector<std::string>& generator_knob_names();

// Sets one knob from a sweep value; the reason when the name is unknown or
// the value is not an integer in range.
std::optional<std::string> set_generator_knob(GeneratorOverrides& overrides, const std::string& name,
                                              const nlohmann::json& value);

// Whether seed `seed` of `profile` ends with volume (workload_volume.h).
bool profile_seed_has_volume(uint64_t seed, const std::string& profile);

// A scenario document (docs/semantics.md §3) without an `expect` block: properties judge it.
nlohmann::json generate_scenario(uint64_t seed, const std::string& profile, const GeneratorOverrides& overrides = {});

}  // namespace qdt::sim
