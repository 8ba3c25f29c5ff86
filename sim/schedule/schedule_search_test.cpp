// PCT and the bounded exhaustive search on toy worlds (sim/schedule/schedule_toy_test.h):
// a check-then-act race that needs one fiber to run many steps inside
// another's window (random scheduling almost never does that; PCT does with
// the probability its bound promises; the search always does), and the
// sleep-set reduction (same outcomes, fewer schedules).
#include "sim/schedule/schedule_search.h"

#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <string>

#include "sim/schedule/choice_policy.h"
#include "sim/schedule/pct_policy.h"
#include "sim/schedule/schedule_toy_test.h"

namespace qdt::sim {
namespace {

constexpr uint64_t kSlots = resource::first_free + 1;
constexpr uint64_t kPrep = resource::first_free + 2;
constexpr uint64_t kRound = resource::first_free + 1000;  // + round

// A check-then-act race over a leadership flag. Two fibers, X and Y, wake
// at every millisecond (round); in each round each checks whether the
// round's flag is free and, if so, claims it. The bug needs Y to claim every
// round before `handover` and X every round after it (the round itself is
// free): Y must run first for `handover` rounds and then X for the rest.
// Uniform picks do that with odds 2^-(rounds - 1). In PCT's terms it is a
// bug of depth 2: Y's priority above X's, and one priority change at Y's
// step in round handover - 1 or handover.
struct Race {
  explicit Race(int rounds, int handover) : first(rounds, 0), handover(handover) {}
  std::vector<int> first;  // per round: 0 free, 1 X, 2 Y
  int handover;
  bool bug() const {
    for (int r = 0; r < static_cast<int>(first.size()); ++r) {
      if (r < handover && first[r] != 2) return false;
      if (r > handover && first[r] != 1) return false;
    }
    return true;
  }
};

std::vector<toy::Fiber> race_program(Race& r) {
  std::vector<toy::Fiber> fibers(2);
  for (int me = 1; me <= 2; ++me) {
    for (int round = 0; round < static_cast<int>(r.first.size()); ++round) {
      fibers[me - 1].push_back({Footprint::of({kRound + round}), [&r, me, round] {
                                  if (r.first[round] == 0) r.first[round] = me;  // check, then act
                                }});
    }
  }
  return fibers;
}

constexpr int kRounds = 20, kHandover = 10;

uint64_t race_steps() {
  Race r(kRounds, kHandover);
  return toy::run_fibers(race_program(r), nullptr, 1);
}

TEST(ToyRace, RandomSchedulingRarelyFindsIt) {
  constexpr uint64_t kSeeds = 2000;
  uint64_t found = 0;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    Race r(kRounds, kHandover);
    toy::run_fibers(race_program(r), nullptr, seed);
    found += r.bug() ? 1 : 0;
  }
  std::cout << "random: " << found << " of " << kSeeds << " seeds found the race\n";
  EXPECT_LT(static_cast<double>(found) / kSeeds, 0.001);  // odds 2^-19
}

TEST(ToyRace, PctFindsItWithinItsBound) {
  const uint64_t k = race_steps();
  EXPECT_EQ(k, 2u + 2 * kRounds);  // each fiber's first step, then one per round
  constexpr uint64_t kSeeds = 2000;
  uint64_t found = 0, first_found = 0, fibers = 0;
  double bound = 0;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    Race r(kRounds, kHandover);
    Rng rng(seed);
    PctPolicy pct(rng, 2, k);
    toy::run_fibers(race_program(r), &pct, seed);
    fibers = pct.fibers_seen();
    bound = pct.bound();
    if (r.bug()) {
      ++found;
      if (first_found == 0) first_found = seed;
    }
  }
  EXPECT_EQ(fibers, 2u);
  EXPECT_DOUBLE_EQ(bound, 1.0 / (2.0 * static_cast<double>(k)));  // 1 / (n k^(d-1))
  const double rate = static_cast<double>(found) / kSeeds;
  std::cout << "pct depth 2, k " << k << ": " << found << " of " << kSeeds << " seeds (rate " << rate
            << ", bound " << bound << ", exact odds " << 1.0 / static_cast<double>(k) << "), first at seed "
            << first_found << "\n";
  // The expected number of tries to a find, 1 / rate, is within 1 / bound.
  EXPECT_GE(rate, bound);
  EXPECT_GT(first_found, 0u);
  EXPECT_LE(first_found, static_cast<uint64_t>(3.0 / bound));
}

TEST(ToyRace, PctDepthOneKeepsOneOrder) {
  // Without change points every round runs in the one priority order.
  std::set<std::string> orders;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    std::string order;
    std::vector<toy::Fiber> fibers(3);
    for (int f = 0; f < 3; ++f) {
      for (int i = 0; i < 4; ++i) fibers[f].push_back({Footprint(), [&order, f] { order += char('a' + f); }});
    }
    Rng rng(seed);
    PctPolicy pct(rng, 1, 100);
    toy::run_fibers(fibers, &pct, seed);
    ASSERT_EQ(order.size(), 12u);
    for (int round = 1; round < 4; ++round) EXPECT_EQ(order.substr(3 * round, 3), order.substr(0, 3)) << order;
    orders.insert(order.substr(0, 3));
  }
  EXPECT_EQ(orders.size(), 6u);  // every priority order occurs
}

TEST(ToyRace, PctIsDeterministicFromTheSeed) {
  auto run = [](uint64_t seed) {
    std::string order;
    std::vector<toy::Fiber> fibers(4);
    for (int f = 0; f < 4; ++f) {
      for (int i = 0; i < 6; ++i) fibers[f].push_back({Footprint(), [&order, f] { order += char('a' + f); }});
    }
    Rng rng(seed);
    PctPolicy pct(rng, 3, 30);
    toy::run_fibers(fibers, &pct, seed);
    return order;
  };
  EXPECT_EQ(run(5), run(5));
  std::set<std::string> seen;
  for (uint64_t seed = 1; seed <= 20; ++seed) seen.insert(run(seed));
  EXPECT_GT(seen.size(), 5u);
}

// The exhaustive tests' race: 12 rounds, so the tree (2^13 leaves) stays small.
ScheduleVerdict judge_race(ChoicePolicy& policy) {
  Race r(12, 6);
  toy::run_fibers(race_program(r), &policy, 0);
  ScheduleVerdict v;
  v.passed = !r.bug();
  for (int f : r.first) v.outcome += char('0' + f);
  v.trace_hash = v.outcome;
  if (!v.passed) v.detail = "Y led until the handover and X after it";
  return v;
}

TEST(ToyRace, ExhaustiveSearchAlwaysFindsIt) {
  for (bool reduce : {false, true}) {
    ScheduleSearchOptions options;
    options.max_schedules = 100'000;
    options.reduce = reduce;
    const ScheduleSearchReport report = search_schedules(judge_race, options);
    std::cout << "search (reduce " << reduce << "): " << report.runs << " runs, " << report.schedules
              << " schedules, " << report.pruned << " pruned, " << report.redundant_runs << " redundant, "
              << report.failed_runs << " failed\n";
    EXPECT_TRUE(report.exhausted);
    EXPECT_GT(report.failed_runs, 0u);
    ASSERT_FALSE(report.failures.empty());
    // The failing schedule, written down, replays the failure.
    ChoicePolicy replay(report.failures.front().choices);
    EXPECT_FALSE(judge_race(replay).passed);
    EXPECT_TRUE(replay.error().empty());
    if (!reduce) {
      // Two orders of the first steps, then two of every round.
      EXPECT_EQ(report.runs, 8192u);
      EXPECT_EQ(report.pruned, 0u);
      EXPECT_EQ(report.failed_runs, 4u);  // either first-step order, either order at the free round
    }
  }
}

// One toy explored without and with the reduction, exhausted both ways.
struct BothWays {
  ScheduleSearchReport full, reduced;
};
BothWays search_both_ways(const ScheduleRun& run) {
  BothWays out;
  for (bool reduce : {false, true}) {
    ScheduleSearchOptions options;
    options.max_schedules = 100'000;
    options.reduce = reduce;
    (reduce ? out.reduced : out.full) = search_schedules(run, options);
  }
  EXPECT_TRUE(out.full.exhausted && out.reduced.exhausted);
  return out;
}

std::set<std::string> outcome_set(const ScheduleSearchReport& report) {
  std::set<std::string> out;
  for (const auto& [outcome, runs] : report.outcomes) out.insert(outcome);
  return out;
}

// Two fibers that never touch the same resource: every interleaving ends in
// one state, and the reduction runs far fewer of them.
TEST(ScheduleReduction, IndependentFibersSameOutcomesFewerSchedules) {
  const BothWays r = search_both_ways([](ChoicePolicy& policy) {
    int x = 0, y = 0;
    std::vector<toy::Fiber> fibers(2);
    for (int i = 0; i < 5; ++i) {
      fibers[0].push_back({Footprint::of({kSlots}), [&x] { x = x * 2 + 1; }});
      fibers[1].push_back({Footprint::of({kPrep}), [&y] { y = y * 3 + 1; }});
    }
    toy::run_fibers(fibers, &policy, 0);
    ScheduleVerdict v;
    v.outcome = std::to_string(x) + "," + std::to_string(y);
    v.trace_hash = v.outcome;
    return v;
  });
  std::cout << "independent: " << r.full.schedules << " schedules without reduction, " << r.reduced.schedules
            << " with (" << r.reduced.redundant_runs << " redundant runs)\n";
  EXPECT_EQ(r.full.runs, 64u);  // two orders at each of 6 instants
  EXPECT_LT(r.reduced.schedules, r.full.schedules / 10);
  EXPECT_EQ(outcome_set(r.full), outcome_set(r.reduced));
  EXPECT_EQ(outcome_set(r.full), (std::set<std::string>{"31,121"}));
}

// A lost update on a shared counter (read, then write; fiber 1 starts a
// millisecond late, so its read meets fiber 0's write at one instant)
// beside private work: the reduction keeps every outcome.
TEST(ScheduleReduction, DependentStepsKeepEveryOutcome) {
  const BothWays r = search_both_ways([](ChoicePolicy& policy) {
    int counter = 0, seen[2] = {0, 0}, mine[2] = {0, 0};
    std::vector<toy::Fiber> fibers(2);
    for (int f = 0; f < 2; ++f) {
      const uint64_t own = resource::first_free + 10 + f;
      fibers[f].push_back({Footprint::of({own}), [&mine, f] { mine[f]++; }, 1 + f});
      fibers[f].push_back({Footprint::of({own}), [&mine, f] { mine[f]++; }, 0});
      fibers[f].push_back({Footprint::of({kSlots}), [&, f] { seen[f] = counter; }});
      fibers[f].push_back({Footprint::of({own}), [&mine, f] { mine[f]++; }, 0});
      fibers[f].push_back({Footprint::of({kSlots}), [&, f] { counter = seen[f] + 1; }});
      fibers[f].push_back({Footprint::of({own}), [&mine, f] { mine[f]++; }, 0});
    }
    toy::run_fibers(fibers, &policy, 0);
    ScheduleVerdict v;
    v.outcome = "counter " + std::to_string(counter);
    v.trace_hash = v.outcome;
    return v;
  });
  std::cout << "lost update: " << r.full.schedules << " schedules without reduction, " << r.reduced.schedules
            << " with (" << r.reduced.redundant_runs << " redundant runs)\n";
  EXPECT_LT(r.reduced.schedules, r.full.schedules);
  EXPECT_EQ(outcome_set(r.full), outcome_set(r.reduced));
  EXPECT_EQ(outcome_set(r.full), (std::set<std::string>{"counter 1", "counter 2"}));
}

// Source-DPOR must run every Mazurkiewicz trace: on random programs (three
// fibers, each a few read-modify-writes of two shared cells, private work
// and steps of unknown footprint, at random instants so steps meet in
// varying groups) the reduced search ends in exactly the final states the
// full one does. Each cell's value encodes the order of its writers, so a
// dropped order of dependent steps shows as a missing outcome.
TEST(ScheduleReduction, RandomProgramsKeepEveryFinalState) {
  uint64_t full_total = 0, reduced_total = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    struct Shape {
      int kind;  // 0, 1: cell; 2: private; 3: unknown (writes cell 0)
      int64_t after_ms;
    };
    Rng rng(seed);
    std::vector<std::vector<Shape>> shapes(3);
    for (auto& fiber : shapes) {
      const int steps = 2 + static_cast<int>(rng.below(3));
      for (int i = 0; i < steps; ++i) {
        fiber.push_back({static_cast<int>(rng.below(4)), static_cast<int64_t>(rng.below(2))});
      }
    }
    const BothWays r = search_both_ways([&shapes](ChoicePolicy& policy) {
      uint64_t cell[2] = {0, 0}, mine[3] = {0, 0, 0};
      std::vector<toy::Fiber> fibers(shapes.size());
      for (size_t f = 0; f < shapes.size(); ++f) {
        for (const Shape& shape : shapes[f]) {
          const uint64_t tag = f + 1;
          switch (shape.kind) {
            case 0:
            case 1: {
              const int c = shape.kind;
              fibers[f].push_back({Footprint::of({kSlots + c}), [&cell, c, tag] { cell[c] = cell[c] * 4 + tag; },
                                   shape.after_ms});
              break;
            }
            case 2:
              fibers[f].push_back({Footprint::of({resource::first_free + 100 + f}), [&mine, f] { mine[f]++; },
                                   shape.after_ms});
              break;
            default:
              fibers[f].push_back({Footprint(), [&cell, tag] { cell[0] = cell[0] * 4 + tag; }, shape.after_ms});
          }
        }
      }
      toy::run_fibers(fibers, &policy, 0);
      ScheduleVerdict v;
      v.outcome = std::to_string(cell[0]) + "," + std::to_string(cell[1]);
      v.trace_hash = v.outcome;
      return v;
    });
    EXPECT_EQ(outcome_set(r.full), outcome_set(r.reduced)) << "seed " << seed;
    EXPECT_LE(r.reduced.runs, r.full.runs) << "seed " << seed;
    EXPECT_EQ(r.reduced.analysis_fallbacks, 0u) << "seed " << seed;
    full_total += r.full.runs;
    reduced_total += r.reduced.runs;
  }
  std::cout << "random programs: " << full_total << " runs without reduction, " << reduced_total << " with\n";
  EXPECT_LT(reduced_total, full_total);
}

TEST(ScheduleSearch, KnuthEstimateOfAUniformTreeIsExact) {
  // Every path of the race's tree meets 13 binary choice points.
  const TreeEstimate e = estimate_schedules(judge_race, 20, 1);
  EXPECT_EQ(e.probes, 20u);
  EXPECT_DOUBLE_EQ(e.schedules, 8192.0);
  EXPECT_DOUBLE_EQ(e.schedules_min, e.schedules_max);
}

TEST(ScheduleSearch, BoundIsReportedWhenHit) {
  ScheduleSearchOptions options;
  options.max_schedules = 10;
  options.reduce = false;
  const ScheduleSearchReport report = search_schedules(judge_race, options);
  EXPECT_EQ(report.runs, 10u);
  EXPECT_FALSE(report.exhausted);
}

TEST(ChoicePolicy, AChoiceOfAFiberThatIsNotReadyIsAnError) {
  ChoicePolicy policy({7});
  Race r(4, 2);
  toy::run_fibers(race_program(r), &policy, 0);
  EXPECT_NE(policy.error().find("choice 0 names fiber 7"), std::string::npos) << policy.error();
}

}  // namespace
}  // namespace qdt::sim
