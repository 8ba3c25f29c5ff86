#pragma once
// What qdt bench's campaign figures share (bench_command.cpp, bench_cache.cpp):
// a `qdt check` campaign run as a child, and two such runs taken in turns.
// Lives in the qdt executable, beside bench_command.cpp.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/bench/bench_context.h"

namespace qdt::sim {

// One `qdt check` campaign in a child, with `extra` flags after its own; its
// summary (seeds_per_s, ...) and cpu_s; `command` is set to its command line.
// A child that fails makes the bench's figures void.
nlohmann::json campaign(Bench& b, const std::string& profile, uint64_t seeds, uint64_t jobs, bool unchecked,
                        std::string& command, const std::vector<std::string>& extra = {});

// Two campaign runs taken in turns, A then B, then B then A (ABBA), so that
// a slow spell of the shared machine falls on both alike: each side's
// fastest run (a campaign's seeds run the same instructions every time, so
// a slower run measures the machine) and each turn's own ratio, B's seeds/s
// over A's, for the note.
struct Alternated {
  nlohmann::json a, b;
  std::string a_runs, b_runs;  // each side's seeds/s, run by run: "1200.5, 1180.2, ..."
  std::string turn_ratios;     // "1.94, 1.98, ..."
};

Alternated alternate(int turns, const std::function<nlohmann::json()>& run_a,
                     const std::function<nlohmann::json()>& run_b);

}  // namespace qdt::sim
