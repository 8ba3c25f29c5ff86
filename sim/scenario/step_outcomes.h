#pragma once
// What a scenario's steps answered, as the runner (sim/scenario/runner.cpp) collects
// them: the input of its `expect` checks (sim/scenario/run_expectations.h) and of its
// metrics (sim/scenario/run_metrics.h).
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "impl/broker/broker.h"
#include "sim/scenario/runner.h"

namespace qdt::sim {

struct StepOutcomes {
  std::map<std::string, nlohmann::json> responses;   // step id -> response JSON, every step but pushes
  std::map<std::string, impl::PushResponse> pushes;  // push steps' responses, as JSON only when asked
  // Summed over every push executed (a push inside repeat runs many times).
  int64_t retries = 0;
  int64_t timeouts = 0;
  std::map<std::string, StepTime> times;  // step path -> when it began and ended (the last run, inside repeat)
};

}  // namespace qdt::sim
