#pragma once
// A toy world for the schedule tests: fibers under the SeededScheduler, each
// a list of actions, one action per step: the fiber sleeps (virtual time,
// 1 ms unless the action says otherwise), then runs the action. As in the
// real world, every fiber whose timer is due at an instant is ready at once
// and the scheduler orders them; a fiber that suspends is not ready again
// before its timer fires (Boost.Fiber never offers a yielding fiber to the
// scheduler's own pick). Each step is labelled with the footprint its
// action declares, so the schedule search can commute independent actions.
// No storage, no network: what varies between runs is only the order.
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <cstdlib>
#include <functional>
#include <vector>

#include "sim/schedule/footprint.h"
#include "sim/base/rng.h"
#include "sim/schedule/scheduler.h"
#include "sim/schedule/virtual_clock.h"

namespace qdt::sim::toy {

struct Action {
  Footprint footprint;  // what `run` touches (unknown: everything)
  std::function<void()> run;
  int64_t after_ms = 1;  // the sleep before it
};
using Fiber = std::vector<Action>;

// Runs every fiber to its end under `policy` (null: random with `seed`).
// Returns the number of scheduler picks (PCT's steps).
inline uint64_t run_fibers(const std::vector<Fiber>& fibers, SchedulePolicy* policy, uint64_t seed) {
  SeededScheduler& scheduler = SeededScheduler::install();
  Rng rng(seed);
  scheduler.set_rng(&rng);
  scheduler.set_policy(policy);
  const uint64_t picks_before = scheduler.picks();
  size_t finished = 0;
  VirtualClock clock;
  std::vector<boost::fibers::fiber> running;
  for (const Fiber& actions : fibers) {
    running.emplace_back([&finished, &actions, &clock] {
      const uint64_t region = SeededScheduler::new_region();
      for (size_t i = 0; i < actions.size(); ++i) {
        // The label describes the step that starts when this fiber is next
        // picked: it runs action i, then sleeps again (or ends).
        if (i + 1 == actions.size()) {
          SeededScheduler::label_rest_of_fiber(actions[i].footprint);
        } else {
          SeededScheduler::label_next_step(region, actions[i].footprint);
        }
        clock.sleep_for(actions[i].after_ms);
        actions[i].run();
      }
      ++finished;  // read by the loop only once every fiber is done
      SeededScheduler::label_fiber_exit();
    });
  }
  // The event loop, as World::run's: main runs when every fiber waits.
  while (finished < fibers.size()) {
    boost::this_fiber::yield();
    if (finished < fibers.size() && !clock.fire_next()) std::abort();  // a toy never deadlocks
  }
  for (auto& f : running) f.join();
  scheduler.set_policy(nullptr);
  scheduler.set_rng(nullptr);
  return scheduler.picks() - picks_before;
}

}  // namespace qdt::sim::toy
