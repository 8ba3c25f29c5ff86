#include "sim/schedule/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <set>
#include <string>
#include <vector>

#include "sim/schedule/choice_policy.h"
#include "sim/schedule/virtual_clock.h"

namespace qdt::sim {
namespace {

// Runs `fibers` workers that each sleep 0 ms `rounds` times, and returns the
// order in which they ran, driven by an event loop like World::run's.
std::string interleaving(uint64_t seed, int fibers, int rounds, VirtualClock& clock) {
  SeededScheduler& scheduler = SeededScheduler::install();
  Rng rng(seed);
  scheduler.set_rng(&rng);
  std::string order;
  int finished = 0;
  std::vector<boost::fibers::fiber> workers;
  for (int f = 0; f < fibers; ++f) {
    workers.emplace_back([&, f] {
      for (int r = 0; r < rounds; ++r) {
        order.push_back(static_cast<char>('a' + f));
        clock.sleep_for(0);
      }
      ++finished;
    });
  }
  while (finished < fibers) {
    boost::this_fiber::yield();
    if (finished < fibers) {
      EXPECT_TRUE(clock.fire_next());
    }
  }
  for (auto& w : workers) w.join();
  scheduler.set_rng(nullptr);
  return order;
}

TEST(SeededScheduler, SameSeedSameInterleaving) {
  VirtualClock c1, c2;
  const std::string a = interleaving(7, 6, 5, c1);
  const std::string b = interleaving(7, 6, 5, c2);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), 30u);
}

// The schedule search's happens-before (sim/schedule/schedule_races.h) needs to know
// which step made each fiber ready, and a spawner labels its child's first
// step: a spawn is seen as readying by the spawning step, and the label holds
// when the child's first step ends at a suspension of the same region.
TEST(SeededScheduler, ReportsWhichStepReadiedAFiberAndLabelsFirstSteps) {
  SeededScheduler& scheduler = SeededScheduler::install();
  ChoicePolicy policy({});
  scheduler.set_policy(&policy);
  VirtualClock clock;
  const Footprint first = Footprint::of({resource::first_free + 7});
  bool done = false;
  boost::fibers::fiber parent([&] {
    const uint64_t region = SeededScheduler::new_region();
    boost::fibers::fiber child([&, region] {
      SeededScheduler::label_next_step(region, Footprint());  // the first step ends here
      clock.sleep_for(0);
    });
    SeededScheduler::label_first_step(child, region, first);
    child.join();
    done = true;
  });
  while (!done) {
    boost::this_fiber::yield();
    if (!done) {
      ASSERT_TRUE(clock.fire_next());
    }
  }
  parent.join();
  scheduler.set_policy(nullptr);
  const auto& steps = policy.steps();
  // Find the child's first step: the first step of a fiber other than the parent's.
  ASSERT_GE(steps.size(), 3u);
  EXPECT_EQ(steps[0].fiber, SchedulePolicy::kLoop);
  const uint64_t parent_ordinal = steps[1].fiber;
  EXPECT_EQ(steps[1].readied_in, 0u);  // made before the loop's first step ended
  size_t c = 2;
  while (c < steps.size() && (steps[c].fiber == parent_ordinal || steps[c].fiber == SchedulePolicy::kLoop)) ++c;
  ASSERT_LT(c, steps.size());
  EXPECT_EQ(steps[c].readied_in, 1u);  // the parent's step spawned it
  EXPECT_EQ(steps[c].footprint, first);
}

TEST(SeededScheduler, DifferentSeedsGiveDifferentInterleavings) {
  std::set<std::string> seen;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    VirtualClock clock;
    seen.insert(interleaving(seed, 6, 5, clock));
  }
  EXPECT_GT(seen.size(), 4u);
}

TEST(VirtualClock, TimeJumpsToTheEarliestTimer) {
  SeededScheduler& scheduler = SeededScheduler::install();
  Rng rng(1);
  scheduler.set_rng(&rng);
  VirtualClock clock;
  std::vector<std::pair<int, int64_t>> woke;
  int finished = 0;
  std::vector<boost::fibers::fiber> workers;
  for (int delay : {300, 100, 200, 100}) {
    workers.emplace_back([&, delay] {
      clock.sleep_for(delay);
      woke.emplace_back(delay, clock.now_ms());
      ++finished;
    });
  }
  while (finished < 4) {
    boost::this_fiber::yield();
    if (finished < 4) {
      ASSERT_TRUE(clock.fire_next());
    }
  }
  for (auto& w : workers) w.join();
  scheduler.set_rng(nullptr);
  ASSERT_EQ(woke.size(), 4u);
  for (const auto& [delay, at] : woke) EXPECT_EQ(delay, at);  // woke exactly at its deadline
  EXPECT_TRUE(std::is_sorted(woke.begin(), woke.end()));
  EXPECT_EQ(clock.now_ms(), 300);
  EXPECT_FALSE(clock.fire_next());
}

}  // namespace
}  // namespace qdt::sim

namespace qdt::sim {
namespace {

// A wait ended early by another fiber cancels its timer: the clock does not
// later jump to the dead deadline, and the waiter learns it was woken.
TEST(VirtualClock, WakeEndsAWaitAndCancelsItsTimer) {
  SeededScheduler& scheduler = SeededScheduler::install();
  Rng rng(3);
  scheduler.set_rng(&rng);
  VirtualClock clock;
  VirtualClock::Wakeup early, late;
  bool early_woken = true, late_woken = true;
  int64_t early_at = -1, late_at = -1;
  int finished = 0;
  std::vector<boost::fibers::fiber> fibers;
  fibers.emplace_back([&] {
    early_woken = clock.wait_for(1000, early);
    early_at = clock.now_ms();
    ++finished;
  });
  fibers.emplace_back([&] {
    late_woken = clock.wait_for(40, late);
    late_at = clock.now_ms();
    ++finished;
  });
  fibers.emplace_back([&] {
    clock.sleep_for(25);
    clock.wake(early);
    clock.wake(early);  // a second wake is a no-op
    ++finished;
  });
  while (finished < 3) {
    boost::this_fiber::yield();
    if (finished < 3) {
      ASSERT_TRUE(clock.fire_next());
    }
  }
  for (auto& f : fibers) f.join();
  scheduler.set_rng(nullptr);
  EXPECT_TRUE(early_woken);
  EXPECT_EQ(early_at, 25);
  EXPECT_FALSE(late_woken);  // timed out
  EXPECT_EQ(late_at, 40);
  EXPECT_FALSE(clock.fire_next());  // the cancelled 1000 ms timer is gone
  EXPECT_EQ(clock.now_ms(), 40);
}

}  // namespace
}  // namespace qdt::sim

namespace qdt::sim {
namespace {

// Fibers that register their timers one after another, in a fixed order
// (fiber f first sleeps f ms, alone at its instant), then all sleep to the
// same instant, 100 ms. Returns the order in which they wake there.
std::string wake_order_at_one_instant(uint64_t seed, int fibers) {
  SeededScheduler& scheduler = SeededScheduler::install();
  Rng rng(seed);
  scheduler.set_rng(&rng);
  VirtualClock clock;
  std::string registered, woke;
  int finished = 0;
  std::vector<boost::fibers::fiber> workers;
  for (int f = 0; f < fibers; ++f) {
    workers.emplace_back([&, f] {
      clock.sleep_for(f);
      registered.push_back(static_cast<char>('a' + f));
      clock.sleep_for(100 - f);
      EXPECT_EQ(clock.now_ms(), 100);
      woke.push_back(static_cast<char>('a' + f));
      ++finished;
    });
  }
  while (finished < fibers) {
    boost::this_fiber::yield();
    if (finished < fibers) {
      EXPECT_TRUE(clock.fire_next());
    }
  }
  for (auto& w : workers) w.join();
  scheduler.set_rng(nullptr);
  EXPECT_EQ(registered, std::string("abcdef").substr(0, static_cast<size_t>(fibers)));  // a fixed registration order
  return woke;
}

// Ties at one instant are the scheduler's choice, not registration order:
// another seed, another wake order; the same seed, the same order.
TEST(VirtualClock, TimersDueAtOneInstantWakeInASeededOrder) {
  std::set<std::string> orders;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const std::string a = wake_order_at_one_instant(seed, 6);
    const std::string b = wake_order_at_one_instant(seed, 6);
    EXPECT_EQ(a, b) << "seed " << seed;
    EXPECT_EQ(a.size(), 6u);
    orders.insert(a);
  }
  EXPECT_GT(orders.size(), 6u) << "ties woke in too few orders";
  EXPECT_TRUE(orders.size() > 1 || *orders.begin() != "abcdef");
}

// A timer cancelled by a wake at the very instant others are due neither
// fires nor hides the live ones.
TEST(VirtualClock, CancelledTimerAtATiedInstantIsSkipped) {
  SeededScheduler& scheduler = SeededScheduler::install();
  Rng rng(5);
  scheduler.set_rng(&rng);
  VirtualClock clock;
  VirtualClock::Wakeup w;
  bool woken = false;
  int at_50 = 0, finished = 0;
  std::vector<boost::fibers::fiber> fibers;
  fibers.emplace_back([&] {
    woken = clock.wait_for(50, w);
    ++finished;
  });
  fibers.emplace_back([&] {
    clock.sleep_for(10);
    clock.wake(w);  // cancels the 50 ms timer
    ++finished;
  });
  for (int i = 0; i < 3; ++i) {
    fibers.emplace_back([&] {
      clock.sleep_for(50);
      if (clock.now_ms() == 50) ++at_50;
      ++finished;
    });
  }
  while (finished < 5) {
    boost::this_fiber::yield();
    if (finished < 5) {
      ASSERT_TRUE(clock.fire_next());
    }
  }
  for (auto& f : fibers) f.join();
  scheduler.set_rng(nullptr);
  EXPECT_TRUE(woken);
  EXPECT_EQ(at_50, 3);
  EXPECT_FALSE(clock.fire_next());
}

}  // namespace
}  // namespace qdt::sim

namespace qdt::sim {
namespace {

// Hundreds of waits ended early (a push's timeout cancelled by its response)
// make the clock drop its dead timers from the heap: live timers still fire
// exactly at their deadlines, in deadline order, and the dead ones never move
// time.
TEST(VirtualClock, ManyCancelledTimersLeaveTheLiveOnesOnTime) {
  SeededScheduler& scheduler = SeededScheduler::install();
  Rng rng(7);
  scheduler.set_rng(&rng);
  VirtualClock clock;
  constexpr int kWaits = 300;
  Rng draws(11);
  VirtualClock::Wakeup w;
  int woken = 0, finished = 0;
  std::vector<std::pair<int64_t, int64_t>> sleepers;  // {deadline, woke at}
  std::vector<boost::fibers::fiber> fibers;
  fibers.emplace_back([&] {
    // Timeouts among the sleepers' deadlines: dead and live timers interleave
    // in the heap, so dropping the dead ones must rebuild it.
    for (int i = 0; i < kWaits; ++i) woken += clock.wait_for(2 + static_cast<int64_t>(draws.next() % 2000), w) ? 1 : 0;
    ++finished;
  });
  fibers.emplace_back([&] {
    for (int i = 0; i < kWaits; ++i) {
      clock.sleep_for(1);
      clock.wake(w);
    }
    ++finished;
  });
  // Deadlines registered out of order, live across every compaction.
  std::vector<int64_t> deadlines;
  for (int i = 0; i < 100; ++i) deadlines.push_back(5 + static_cast<int64_t>(draws.next() % 2000));
  for (int64_t deadline : deadlines) {
    fibers.emplace_back([&, deadline] {
      clock.sleep_for(deadline);
      sleepers.emplace_back(deadline, clock.now_ms());
      ++finished;
    });
  }
  const int total = static_cast<int>(fibers.size());
  while (finished < total) {
    boost::this_fiber::yield();
    if (finished < total) {
      ASSERT_TRUE(clock.fire_next());
    }
  }
  for (auto& f : fibers) f.join();
  scheduler.set_rng(nullptr);
  EXPECT_EQ(woken, kWaits);  // every wait was ended by its wake, none timed out
  EXPECT_GE(clock.compactions(), 3u);
  ASSERT_EQ(sleepers.size(), deadlines.size());
  for (const auto& [deadline, at] : sleepers) EXPECT_EQ(deadline, at);
  EXPECT_TRUE(std::is_sorted(sleepers.begin(), sleepers.end()));
  EXPECT_EQ(clock.pending(), 0u);
  EXPECT_FALSE(clock.fire_next());  // no dead timer moves time
  EXPECT_EQ(clock.now_ms(), *std::max_element(deadlines.begin(), deadlines.end()));
}

}  // namespace
}  // namespace qdt::sim
