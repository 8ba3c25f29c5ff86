// The seeded scheduler's costs: a fiber switch (a zero-length sleep that
// hands the core to the next fiber the seed picks) and a fiber's creation
// and join on the world's pooled stacks. Run: build/sim/scheduler_bench
#include <benchmark/benchmark.h>

#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <boost/fiber/pooled_fixedsize_stack.hpp>
#include <vector>

#include "sim/base/rng.h"
#include "sim/schedule/scheduler.h"
#include "sim/schedule/virtual_clock.h"

namespace qdt::sim {
namespace {

// {fibers}: each sleeps 0 ms in a loop; items are switches.
void BM_SchedulerSwitch(benchmark::State& state) {
  const int fibers = static_cast<int>(state.range(0));
  constexpr int kRounds = 1000;
  SeededScheduler& scheduler = SeededScheduler::install();
  Rng rng(1);
  scheduler.set_rng(&rng);
  for (auto _ : state) {
    VirtualClock clock;
    int finished = 0;
    std::vector<boost::fibers::fiber> workers;
    for (int f = 0; f < fibers; ++f) {
      workers.emplace_back([&] {
        for (int r = 0; r < kRounds; ++r) clock.sleep_for(0);
        ++finished;
      });
    }
    while (finished < fibers) {
      boost::this_fiber::yield();
      if (finished < fibers && !clock.fire_next()) state.SkipWithError("deadlock");
    }
    for (auto& w : workers) w.join();
  }
  scheduler.set_rng(nullptr);
  state.SetItemsProcessed(state.iterations() * fibers * kRounds);
}
BENCHMARK(BM_SchedulerSwitch)->Arg(2)->Arg(8)->Arg(64);

// A fiber created on a pooled 256 KiB stack (as World::spawn does), run and joined.
void BM_FiberCreateJoin(benchmark::State& state) {
  SeededScheduler& scheduler = SeededScheduler::install();
  Rng rng(1);
  scheduler.set_rng(&rng);
  boost::fibers::pooled_fixedsize_stack stacks(256 * 1024);
  for (auto _ : state) {
    int ran = 0;
    boost::fibers::fiber f(std::allocator_arg, stacks, [&] { ++ran; });
    f.join();
    benchmark::DoNotOptimize(ran);
  }
  scheduler.set_rng(nullptr);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FiberCreateJoin);

}  // namespace
}  // namespace qdt::sim

BENCHMARK_MAIN();
