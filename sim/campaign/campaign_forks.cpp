#include "sim/campaign/campaign_forks.h"

#include <xxhash.h>

namespace qdt::sim {

using json = nlohmann::json;

namespace {

// A fork's generator seed: a function of the seed, the point and the fork
// number only, so a campaign forks the same way every time it is run.
uint64_t fork_seed(uint64_t seed, const std::string& point, uint64_t fork) {
  const std::string key = std::to_string(seed) + "/" + point + "/" + std::to_string(fork);
  // 53 bits: exact in every JSON reader (the schema validator reads integers as doubles or int64).
  return XXH3_64bits(key.data(), key.size()) & ((uint64_t{1} << 53) - 1);
}

void add_count(json& object, const std::string& key, uint64_t n) {
  object[key] = object.value(key, uint64_t{0}) + n;
}

}  // namespace

json empty_forking() {
  return {{"runs", 0}, {"failed", 0}, {"forked_at", json::object()}, {"reached", json::object()}};
}

std::vector<ForkOutcome> RareForker::after_seed(const SeedOutcome& o, json& forking) {
  std::vector<ForkOutcome> out;
  if (!enabled()) return out;
  ++seeds_;
  for (const std::string& name : o.result.reached) ++seeds_reaching_[name];
  // A failing seed's failure is already found: forking it mostly finds it again.
  if (!o.passed) return out;
  for (const auto& [point, picks] : o.result.reached_at_pick) {
    // Rare: reached by fewer than the share of this worker's seeds so far.
    const double share = static_cast<double>(seeds_reaching_[point]) / static_cast<double>(seeds_);
    if (share >= rare_share_ || !forked_.insert(point).second) continue;
    add_count(forking["forked_at"], point, 1);
    for (uint64_t k = 0; k < forks_; ++k) {
      ForkOutcome f{point, k, {}};
      f.run.seed = o.seed;
      f.run.scenario = o.scenario;
      f.run.scenario["world"]["schedule"] = {
          {"mode", "fork"}, {"fork_after_picks", picks}, {"fork_seed", fork_seed(o.seed, point, k)}};
      f.run.scenario["description"] = o.scenario.value("description", std::string()) + " Forked at " + point +
                                      " (fork " + std::to_string(k) + ").";
      if (std::optional<RunResult> result = run_document(f.run.scenario, variant_, /*checked_mode=*/true,
                                                                /*check_schema=*/true, /*step_responses=*/true, engine_)) {
        f.run.result = std::move(*result);
        f.run.passed = f.run.result.passed;
        f.run.signature = failure_signature(f.run.result);
      } else {
        f.run.loaded = false;
        f.run.signature = "generator";
        f.run.result.failures.push_back(
            {"generator", "generator", "", std::nullopt, "the forked scenario does not load", std::nullopt,
             properties::Rule::generator_invalid_scenario});
      }
      forking["runs"] = forking["runs"].get<uint64_t>() + 1;
      if (!f.run.passed) forking["failed"] = forking["failed"].get<uint64_t>() + 1;
      for (const std::string& n : f.run.result.reached) add_count(forking["reached"], n, 1);
      out.push_back(std::move(f));
    }
  }
  return out;
}

void merge_forking(json& into, const json& part) {
  if (!into.is_object()) into = empty_forking();
  into["runs"] = into["runs"].get<uint64_t>() + part.value("runs", uint64_t{0});
  into["failed"] = into["failed"].get<uint64_t>() + part.value("failed", uint64_t{0});
  for (const char* key : {"forked_at", "reached"}) {
    const json counts = part.value(key, json::object());
    for (const auto& [name, n] : counts.items()) add_count(into[key], name, n.get<uint64_t>());
  }
}

std::vector<std::string> points_only_forks_reached(const json& forking, const json& coverage) {
  std::set<std::string> by_seeds;
  for (const auto& [profile, p] : coverage.items()) {
    const json points = p.value("points", json::object());
    for (const auto& [name, n] : points.items()) {
      if (n.get<uint64_t>() > 0) by_seeds.insert(name);
    }
  }
  std::vector<std::string> out;
  const json reached = forking.value("reached", json::object());
  for (const auto& [name, n] : reached.items()) {
    if (!by_seeds.contains(name)) out.push_back(name);
  }
  return out;
}

}  // namespace qdt::sim
