#include "sim/cli/bench_cache.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <limits>
#include <string>
#include <vector>

#include "impl/hash.h"
#include "sim/campaign/campaign.h"
#include "sim/campaign/workload.h"
#include "sim/campaign/workload_volume.h"
#include "sim/cli/bench_campaigns.h"
#include "sim/world/cache_module_choice.h"

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

void cache_group(Bench& b) {
  const CacheModule* module = chosen_cache_module();
  if (!module) return;
  const std::string cmd = b.self_command("cache") + cache_module_flags();
  // One instance and one partition whose window holds about a thousand
  // one-hash rows (the clock advances a millisecond a push, expiry every
  // hundred pushes): the crossing alone (needs_hydration on a hydrated
  // partition) and a push's ask and teach.
  const uint64_t pushes = b.options.quick ? 20'000 : 200'000;
  b.progress("cache: " + std::to_string(pushes) + " pushes' calls into " + module->named);
  const std::string pid = std::string("q0\x1f") + "p0";
  constexpr int64_t kNowMs = 1'000'000'000, kWindowMs = 1000;
  double cross_s = 0, push_s = 0;
  try {
    std::unique_ptr<impl::ForeignCache> cache = module->library->make(512, true);
    cache->hydrate(pid, {}, kNowMs - kWindowMs, -1, kNowMs);
    std::vector<std::vector<impl::Hash128>> keys(pushes);
    for (uint64_t i = 0; i < pushes; ++i) keys[i] = {impl::hash_transaction_id("b" + std::to_string(i))};
    for (uint64_t i = 0; i < pushes; ++i) {
      const int64_t now = kNowMs + static_cast<int64_t>(i);
      if (i % 100 == 0) cache->expire(pid, kWindowMs, now);
      const Steady::time_point push = Steady::now();
      cache->verified_for_push(pid, keys[i], now);
      cache->on_push_committed(pid, static_cast<int64_t>(i), keys[i], now);
      const Steady::time_point cross = Steady::now();
      cache->needs_hydration(pid, now);
      const Steady::time_point end = Steady::now();
      push_s += std::chrono::duration<double>(cross - push).count();
      cross_s += std::chrono::duration<double>(end - cross).count();
    }
  } catch (const impl::ForeignCacheError& e) {
    std::cerr << "[bench] the cache module failed: " << e.what() << ": its figures are void\n";
    b.void_run = true;
  }
  const double n = static_cast<double>(pushes);
  b.add(bench_figure("foreign_cache_call_ns", 1e9 * cross_s / n, "ns", cmd, 0, 0,
                     "needs_hydration on a hydrated partition: the crossing into the module, clock reads included"));
  b.add(bench_figure("foreign_cache_push_ns", 1e9 * push_s / n, "ns", cmd, 0, 0,
                     "verified_for_push and on_push_committed of one fresh hash, about a thousand rows held"));
  // The campaigns: qdt's own cache against the module, in alternated turns.
  const uint64_t seeds = b.options.quick ? 30 : 1000;
  const int turns = b.options.quick ? 2 : 3;
  std::vector<std::string> flags = {module->built ? "--cache-impl" : "--cache-lib", module->named};
  if (module->caller != impl::CacheCaller::shipped) {
    flags.push_back("--cache-caller");
    flags.push_back(impl::cache_caller_name(module->caller));
  }
  std::string own_cmd, foreign_cmd;
  const Alternated a = alternate(
      turns, [&] { return campaign(b, "default", seeds, 1, false, own_cmd); },
      [&] { return campaign(b, "default", seeds, 1, false, foreign_cmd, flags); });
  const double own = a.a["seeds_per_s"].get<double>(), foreign = a.b["seeds_per_s"].get<double>();
  const std::string runs = "one process; the fastest of " + std::to_string(turns) + " runs (";
  b.add(bench_figure("seeds_per_s.default_builtin_cache", own, "seeds/s", own_cmd, 0, 0,
                     runs + a.a_runs + "), alternated with the foreign cache"));
  b.add(bench_figure("seeds_per_s.default_foreign_cache", foreign, "seeds/s", foreign_cmd, 0, 0,
                     runs + a.b_runs + "), alternated with qdt's own cache"));
  b.add(bench_figure("foreign_cache_ratio.default", foreign / std::max(own, 1e-9), "x", foreign_cmd, '>', 0.5,
                     "seeds/s on the foreign cache over qdt's own; the turns' own ratios: " + a.turn_ratios));
}

}  // namespace qdt::sim
