#pragma once
// Random workloads for campaigns (SPEC 4 profiles): a seed and a profile give
// a scenario document, which then goes through the same loader as a file.
// Generators bias towards collisions: few keys, few partitions, repeats near
// window edges, retries that race their own first attempt.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace qdt::sim {

const std::vector<std::string>& profile_names();
bool is_profile(const std::string& name);

// A scenario document (SPEC 3) without an `expect` block: properties judge it.
nlohmann::json generate_scenario(uint64_t seed, const std::string& profile);

}  // namespace qdt::sim
