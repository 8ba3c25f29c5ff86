#pragma once
// `qdt bench --only items` (target 1): the whole simulated path, then every
// checker, in rounds; --case and --rounds narrow it to what one profiles.
#include <string>
#include <vector>

#include "sim/bench/bench_context.h"

namespace qdt::sim {

// The cases, in the order each round runs them.
const std::vector<std::string>& item_case_names();

// Rounds by default: a cold first round and five warm ones (two in --quick).
int default_item_rounds(bool quick);

void items_group(Bench& b);

}  // namespace qdt::sim
