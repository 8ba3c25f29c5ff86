#include "sim/campaign/campaign.h"

#include <functional>

#include "sim/campaign/workload.h"
#include "sim/scenario/runner.h"
#include "sim/scenario/scenario.h"

namespace qdt::sim {

using json = nlohmann::json;

std::optional<RunResult> run_document(const json& doc, impl::Variant variant, bool checked_mode, bool check_schema,
                                      bool step_responses, StorageEngineKind engine) {
  LoadResult loaded = check_schema ? load_scenario_text(doc.dump(), doc.value("name", std::string("generated")))
                                   : load_scenario_document(doc, doc.value("name", std::string("generated")), false);
  if (!loaded.scenario) return std::nullopt;
  RunOptions options;
  options.variant = variant;
  options.checked_mode = checked_mode;
  options.step_responses = step_responses;
  options.engine = engine;
  return run_scenario(*loaded.scenario, options).result;
}

std::string failure_signature(const RunResult& result) {
  if (result.passed || result.failures.empty()) return "";
  return result.failures[0].signature();
}

SeedOutcome check_seed(uint64_t seed, const std::string& profile, impl::Variant variant,
                       std::optional<bool> interleave, const json& schedule, bool checked_mode,
                       StorageEngineKind engine) {
  SeedOutcome out;
  out.seed = seed;
  out.scenario = generate_scenario(seed, profile);
  if (interleave) out.scenario["world"]["storage"]["interleave"] = *interleave;
  if (!schedule.is_null()) out.scenario["world"]["schedule"] = schedule;
  // A campaign reads a seed's verdict, hash, metrics and reach, never its
  // steps' responses (a failure's file re-runs its shrunk scenario for them).
  std::optional<RunResult> result =
      run_document(out.scenario, variant, checked_mode, /*check_schema=*/false, /*step_responses=*/false, engine);
  if (!result) {
    // A generated scenario that does not load is a bug in the generator.
    out.signature = "generator";
    out.loaded = false;
    out.result.failures.push_back(
        {"generator", "generator", "", std::nullopt, "the generated scenario does not load", std::nullopt,
         properties::Rule::generator_invalid_scenario});
    return out;
  }
  out.result = std::move(*result);
  out.passed = out.result.passed;
  out.signature = failure_signature(out.result);
  return out;
}

int count_steps(const json& scenario) {
  std::function<int(const json&)> count = [&](const json& list) {
    int n = 0;
    for (const json& s : list) n += 1 + (s.contains("steps") ? count(s["steps"]) : 0);
    return n;
  };
  return scenario.contains("steps") ? count(scenario["steps"]) : 0;
}

}  // namespace qdt::sim
