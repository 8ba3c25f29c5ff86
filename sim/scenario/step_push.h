#pragma once
// The `push` step: one request of items handed to a broker as written, sent
// by a producer that retries as its `retry` says (docs/semantics.md §3).
#include <nlohmann/json.hpp>
#include <string>

#include "sim/scenario/scenario.h"
#include "sim/world/world_config.h"

namespace qdt::sim {

struct PushArgs {
  nlohmann::json items;  // handed to the broker as written
  std::string producer;  // defaults to a producer per step
  RetryPolicy retry;
};

extern const StepKind push_step;

inline bool is_push(const Step& step) { return step.kind == &push_step; }

}  // namespace qdt::sim
