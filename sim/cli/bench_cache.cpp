#include "sim/cli/bench_cache.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "sim/campaign/campaign.h"
#include "sim/campaign/workload.h"
#include "sim/campaign/workload_volume.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;
using Steady = std::chrono::steady_clock;

double seconds_since(Steady::time_point start) { return std::chrono::duration<double>(Steady::now() - start).count(); }

struct Cost {
  double wall_s = 0;
  uint64_t items = 0;
  double us_per_item() const { return 1e6 * wall_s / static_cast<double>(std::max<uint64_t>(items, 1)); }
};

// Runs each document once (world and every checker, no schema check): the
// wall time and the items; a failed property makes the bench void.
Cost run_documents(Bench& b, const std::vector<json>& docs) {
  Cost cost;
  for (const json& doc : docs) {
    const Steady::time_point start = Steady::now();
    const std::optional<RunResult> r = run_document(doc, impl::Variant::none, true, false, false);
    cost.wall_s += seconds_since(start);
    if (!r || !r->passed) {
      std::cerr << "[bench] " << doc.value("name", std::string("?")) << " failed: the volume figures are void\n";
      b.void_run = true;
      continue;
    }
    cost.items += r->metrics.value("items", uint64_t{0});
  }
  return cost;
}

// The seed's document with its volume steps drawn `times` as large.
json scaled_volume(uint64_t seed, const std::string& profile, int64_t times) {
  json doc = generate_scenario(seed, profile);
  json steps = json::array();
  for (json& s : doc["steps"]) {
    if (s.value("id", std::string()).rfind('v', 0) != 0) steps.push_back(std::move(s));
  }
  VolumeShape shape;
  shape.large_items_min *= times;
  shape.large_items_max *= times;
  shape.run_pushes_min *= times;
  shape.run_pushes_max *= times;
  for (json& s : volume_steps(seed, doc["world"]["brokers"].get<int>(), shape)) steps.push_back(std::move(s));
  doc["steps"] = std::move(steps);
  return doc;
}

// The fastest of `rounds` turns of each side, taken in turns so that a slow
// spell of the shared machine falls on every side alike.
std::vector<Cost> fastest(Bench& b, const std::vector<std::vector<json>>& sides, int rounds) {
  std::vector<Cost> best(sides.size());
  for (int round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < sides.size(); ++i) {
      const Cost c = run_documents(b, sides[i]);
      if (round == 0 || c.us_per_item() < best[i].us_per_item()) best[i] = c;
    }
  }
  return best;
}

}  // namespace

void volume_group(Bench& b) {
  const std::string cmd = b.self_command("volume");
  const int rounds = b.options.quick ? 2 : 5;
  const size_t ordinary_seeds = b.options.quick ? 20 : 100;
  for (const std::string profile : {"cache-pressure", "multi-broker"}) {
    std::vector<json> ordinary, volume;
    uint64_t volume_seed = 0;
    for (uint64_t seed = 1; seed < 100'000 && (ordinary.size() < ordinary_seeds || volume.empty()); ++seed) {
      const bool is_volume = profile_seed_has_volume(seed, profile);
      if (is_volume && volume.empty()) {
        volume_seed = seed;
        volume.push_back(generate_scenario(seed, profile));
      } else if (!is_volume && ordinary.size() < ordinary_seeds) {
        ordinary.push_back(generate_scenario(seed, profile));
      }
    }
    b.progress("volume: " + profile + " seed " + std::to_string(volume_seed) + " (and 4x as large) against " +
               std::to_string(ordinary.size()) + " ordinary seeds, " + std::to_string(rounds) + " rounds");
    const std::vector<Cost> c = fastest(b, {ordinary, volume, {scaled_volume(volume_seed, profile, 4)}}, rounds);
    const std::string where = "world and every checker, the fastest of " + std::to_string(rounds) + " alternated rounds";
    b.add(bench_figure("us_per_item." + profile + "_ordinary", c[0].us_per_item(), "us", cmd, 0, 0,
                       std::to_string(ordinary.size()) + " seeds without volume, " + std::to_string(c[0].items) +
                           " items; " + where));
    b.add(bench_figure("us_per_item." + profile + "_volume", c[1].us_per_item(), "us", cmd, 0, 0,
                       "seed " + std::to_string(volume_seed) + ", " + std::to_string(c[1].items) + " items; " + where));
    b.add(bench_figure("volume_cost_ratio." + profile, c[1].us_per_item() / std::max(c[0].us_per_item(), 1e-9), "x", cmd,
                       '<', 1.5, "a volume seed's cost per item over an ordinary seed's"));
    // No target: the storage probe under test reads the window's rows, the large one among them, on every
    // push it cannot skip, which grows with the run times the request, whatever the world costs.
    b.add(bench_figure("volume_growth_4x." + profile, c[2].us_per_item() / std::max(c[1].us_per_item(), 1e-9), "x", cmd,
                       0, 0,
                       "the volume seed drawn four times as large (" + std::to_string(c[2].items) +
                           " items): cost per item over the drawn size's, the probes' reads of the window included"));
  }
}

}  // namespace qdt::sim
