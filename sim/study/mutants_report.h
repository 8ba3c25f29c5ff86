#pragma once
// The report of qdt mutants (docs/semantics.md §4, 7): per variant, caught or survived and
// where; survivors judged against the harmless-argument registry
// (mutant_arguments.h). Pure functions of the results, so the exit code and
// the output are tested on hand-made results (mutants_test.cpp).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "impl/variant.h"
#include "sim/base/outcome.h"
#include "sim/study/mutant_arguments.h"
#include "sim/study/shipped_holes.h"

namespace qdt::sim {

// What the campaign found for one variant. Every field but wall_s is a
// function of the variant, the seeds and the profiles alone.
struct MutantResult {
  impl::Variant variant = impl::Variant::none;
  bool caught = false;
  uint64_t seeds_run = 0;    // scenarios run, the catching one included (all of them for a survivor)
  uint64_t seeds_total = 0;  // scenarios the variant would have run without being caught
  double wall_s = 0;         // wall time for the variant, shrinking included (never compared)
  // When caught: the first failure in seed order (seed 1 of every profile, then seed 2, ...).
  std::string property;  // its property (failure_signature)
  std::string detail;    // its first failure's detail
  std::string profile;
  uint64_t seed = 0;
  // The shrunk scenario (failure_file.h).
  std::string file;
  bool file_written = false;
  int steps = 0;
  int shrink_runs = 0;
  std::string replay;
  // For the variants that copy the shipped design (shipped_holes.h): the
  // scenario parameter at which each hole bites, found by bisection.
  std::vector<HoleThreshold> thresholds;
};

enum class MutantVerdict { caught, harmless, hole };

MutantVerdict classify(const MutantResult& result, const HarmlessRegistry& registry);
std::string verdict_name(MutantVerdict verdict);  // "caught", "survived", "hole"

// A result as JSON and back (worker processes send results to the parent this way).
nlohmann::json result_json(const MutantResult& result);
MutantResult result_from_json(const nlohmann::json& doc);

// {variants: [...], survivors: [...], holes: [...]} plus the run's settings:
// each variant's result with its verdict (and argument, for a harmless
// survivor); survivors: every variant not caught, as
// {variant, harmless, argument, test}; holes: the names of survivors without
// an argument. `settings` (profile, seeds, ...) is merged in at the top.
nlohmann::json mutants_json(const std::vector<MutantResult>& results, const HarmlessRegistry& registry,
                            const nlohmann::json& settings);

// The human-readable table, a line per variant, then the replay commands,
// the arguments of harmless survivors, the holes and a one-line total.
std::string mutants_table(const std::vector<MutantResult>& results, const HarmlessRegistry& registry);

// Outcome::held when every variant is caught or argued harmless and every measured
// threshold is what it claims (threshold_ok), else Outcome::failed.
Outcome mutants_outcome(const std::vector<MutantResult>& results, const HarmlessRegistry& registry);

// qdt mutants --list: every variant of the catalogue, its description and
// whether the registry argues it harmless (as JSON with `as_json`).
std::string variant_list(const HarmlessRegistry& registry, bool as_json);

}  // namespace qdt::sim
