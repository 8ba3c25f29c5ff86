#include "sim/scheduler.h"

#include <gtest/gtest.h>

#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <set>
#include <string>
#include <vector>

#include "sim/virtual_clock.h"

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
