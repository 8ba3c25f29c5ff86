#include "sim/bench/bench_items.h"

#include <algorithm>
#include <cassert>

#include "sim/bench/bench_workloads.h"

namespace qdt::sim {
namespace {

// Target 1 is a throughput figure: the property checkers run, checked mode
// (cache-transparency's full re-probe of the window per push, an instrument
// whose cost grows with the window like the cache-off push) does not. The
// checked runs are reported beside them with their cost.
//
// The cases run in 1 + kWarmItemRuns rounds in this process, one run of each
// case per round, so a slow spell of the shared machine falls on every case
// alike. The first round meets cold memory (the heap and SQLite's page
// caches grow, the storage pool opens its databases), as a one-shot `qdt
// replay` does; it is reported as `_cold`. The other rounds are a
// campaign's steady state, and a case's figure is the fastest of them:
// every warm round runs the same instructions, so a slower round measures
// what else the shared machine was doing, not the code. A run spent whole in
// a slow spell still reads slow (the fastest round escapes short spells
// only), so the median is reported beside it (`_median`), with the slowest
// round in the note.
constexpr int kWarmItemRuns = 5;

struct ItemCase {
  std::string name;
  int batch;
  bool checked;
  PushFigures cold;
  std::vector<PushFigures> warm;  // sorted by rate once every round ran, slowest first

  static double rate(const PushFigures& f) { return static_cast<double>(f.items) / (f.run_wall_s + f.check_wall_s); }
  const PushFigures& fastest() const { return warm.back(); }
  const PushFigures& median() const { return warm[warm.size() / 2]; }
};

std::string rounded(double v) { return std::to_string(static_cast<long long>(v + 0.5)); }

// The command that reproduces this run, the narrowing flags included.
std::string items_command(const Bench& b) {
  std::string cmd = b.self_command("items");
  for (const std::string& c : b.options.item_cases) cmd += " --case " + c;
  if (b.options.item_rounds != 0) cmd += " --rounds " + std::to_string(b.options.item_rounds);
  return cmd;
}

struct ItemCaseSpec {
  const char* name;
  int batch;
  bool checked;
};
constexpr ItemCaseSpec kItemCases[] = {
    {"batch1", 1, false}, {"batch10", 10, false}, {"batch1_checked", 1, true}, {"batch10_checked", 10, true}};

}  // namespace

const std::vector<std::string>& item_case_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const ItemCaseSpec& c : kItemCases) out.emplace_back(c.name);
    return out;
  }();
  return names;
}

int default_item_rounds(bool quick) { return 1 + (quick ? 1 : kWarmItemRuns); }

void items_group(Bench& b) {
  const std::string cmd = items_command(b);
  const int requests = b.options.quick ? 100 : 1000;
  std::vector<ItemCase> cases;
  const std::vector<std::string>& only = b.options.item_cases;
  for (const ItemCaseSpec& spec : kItemCases) {
    if (!only.empty() && std::find(only.begin(), only.end(), spec.name) == only.end()) continue;
    cases.push_back({spec.name, spec.batch, spec.checked, {}, {}});
  }
  const int rounds = b.options.item_rounds != 0 ? b.options.item_rounds : default_item_rounds(b.options.quick);
  assert(rounds >= 2 && !cases.empty());
  for (int round = 0; round < rounds; ++round) {
    b.progress("items, round " + std::to_string(round + 1) + " of " + std::to_string(rounds) +
               (round == 0 ? " (cold)" : ""));
    for (ItemCase& c : cases) {
      PushWorkload w;
      w.batch = c.batch;
      w.requests = c.batch == 1 ? requests : requests / 4;
      w.checked_mode = c.checked;
      PushFigures f = run_push_workload(w);
      if (f.failures > 0) b.void_run = true;
      if (round == 0) c.cold = std::move(f);
      else c.warm.push_back(std::move(f));
    }
  }
  double unchecked_rate = 0;
  for (ItemCase& c : cases) {
    std::sort(c.warm.begin(), c.warm.end(),
              [](const PushFigures& x, const PushFigures& y) { return ItemCase::rate(x) < ItemCase::rate(y); });
    const PushFigures& f = c.fastest();
    const double wall = f.run_wall_s + f.check_wall_s;
    const double rate = ItemCase::rate(f);
    const std::string name = std::string("items_per_s.") + c.name;
    const std::string note =
        std::string("8 producers, cache on, window 3600 s, checkers on (") +
        std::to_string(static_cast<int>(100 * f.check_wall_s / wall)) + "% of the wall time), checked mode " +
        (c.checked ? "on" : "off") + "; the fastest of " + std::to_string(c.warm.size()) +
        " warm runs (the same instructions each: a slower one is the machine), median " +
        rounded(ItemCase::rate(c.median())) + ", slowest " + rounded(ItemCase::rate(c.warm.front())) +
        ", the cold first run " + rounded(ItemCase::rate(c.cold));
    if (!c.checked) {
      b.add(bench_figure(name, rate, "items/s", cmd, '>', c.batch == 1 ? 50'000 : 200'000, note));
      b.add(bench_figure(name + "_median", ItemCase::rate(c.median()), "items/s", cmd, 0, 0,
                         "the median warm run: how fast a run was while the shared machine did what it did"));
      b.add(bench_figure(name + "_cold", ItemCase::rate(c.cold), "items/s", cmd, 0, 0,
                         "the first run in the process: the heap, SQLite's page caches and the storage pool start empty"));
      if (c.batch == 1) {
        unchecked_rate = rate;
        b.add(bench_figure("virtual_s_per_wall_s.batch1", f.virtual_s / wall, "s/s", cmd));
        b.add(bench_figure("check_share.batch1", f.check_wall_s / wall, "fraction", cmd, 0, 0,
                     "the checkers' part of the wall time"));
      }
    } else {
      b.add(bench_figure(name, rate, "items/s", cmd, 0, 0, note));
      // Only beside batch 1's unchecked figure (a --case run may lack it).
      if (c.batch == 1 && unchecked_rate > 0) {
        b.add(bench_figure("checked_cost.items", unchecked_rate / rate, "x", cmd, 0, 0, "batch 1"));
      }
    }
  }
}

}  // namespace qdt::sim
