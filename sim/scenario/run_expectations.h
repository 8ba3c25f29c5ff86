#pragma once
// A scenario's `expect` and `expect_stored` blocks (docs/semantics.md §3) judged against
// what its run answered: each unmet expectation becomes one failure object
// (kind "expectation") appended to `failures`.
#include <nlohmann/json.hpp>
#include <vector>

#include "properties/history.h"
#include "sim/scenario/run_result.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/step_outcomes.h"
#include "sim/world/world.h"

namespace qdt::sim {

void check_expectations(const Scenario& s, const StepOutcomes& out, const history::History& h, World& world,
                        std::vector<RunFailure>& failures);

}  // namespace qdt::sim
