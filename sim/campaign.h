#pragma once
// Random campaigns (qdt check): one generated scenario per seed, judged by
// every property; a failure is shrunk — fewer steps, fewer items, no faults,
// shorter waits — while it still fails the same property, and written as a
// scenario file whose `expect` block states what the reference
// implementation answers.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "impl/variant.h"

namespace qdt::sim {

struct SeedOutcome {
  uint64_t seed = 0;
  bool passed = false;
  std::string signature;  // the first failure's property, or "expectation"
  nlohmann::json scenario;
  nlohmann::json result;
};

SeedOutcome check_seed(uint64_t seed, const std::string& profile, impl::Variant variant);

// The first failure's property name, or "expectation"; "" when passed.
std::string failure_signature(const nlohmann::json& result);

struct Shrunk {
  nlohmann::json scenario;
  nlohmann::json result;  // of the shrunk scenario, under the same variant
  int runs = 0;           // replays spent shrinking
};

// Greedy reduction, bounded by `max_runs` replays.
Shrunk shrink(const nlohmann::json& scenario, impl::Variant variant, const std::string& signature,
              int max_runs = 3000);

// Every step, children included.
int count_steps(const nlohmann::json& scenario);

// Adds the reference implementation's answers for top-level push and ack
// steps as `expect` (left out when the reference itself fails the scenario).
nlohmann::json with_reference_expectations(nlohmann::json scenario);

}  // namespace qdt::sim
