// The whole simulated push path (producer -> network -> broker -> storage and
// back, under the seeded scheduler), in items per wall second, plus the
// checkers' cost over the resulting history, all together and each alone.
// Run: build/sim/world_bench
#include <benchmark/benchmark.h>

#include <boost/fiber/fiber.hpp>

#include "properties/checkers.h"
#include "sim/world/world.h"

namespace qdt::sim {
namespace {

constexpr int kProducers = 8;
constexpr int kPartitions = 8;

// kProducers fibers each send `requests` one-item requests with fresh keys,
// round-robin over partitions; `window` seconds of dedup on the queue.
history::History run_world(int64_t window, int requests, uint64_t seed) {
  WorldConfig config;
  config.seed = seed;
  World world(config, false);
  world.run([&] {
    world.admin().configure("q", {{"dedupWindowSeconds", window}});
    std::vector<boost::fibers::fiber> fibers;
    for (int p = 0; p < kProducers; ++p) {
      fibers.push_back(world.spawn([&, p] {
        for (int r = 0; r < requests; ++r) {
          const nlohmann::json items = nlohmann::json::array(
              {{{"queue", "q"}, {"partition", "p" + std::to_string(r % kPartitions)},
                {"transactionId", "k" + std::to_string(p) + "-" + std::to_string(r)}, {"data", {{"n", r}}}}});
          world.push("bench", 0, "producer" + std::to_string(p), items);
        }
      }));
    }
    for (auto& f : fibers) f.join();
  });
  return std::move(world.history());
}

// The history `qdt bench items` judges (sim/bench/bench_workloads.cpp): every
// request carries `batch` items for one partition, and the run is finished
// (final reads, outcomes and request times recorded), so the black-box
// checkers (client-visible, ...) have what they read; run_world's history
// leaves them idle. {batch, requests per producer}
history::History run_finished_world(int batch, int requests) {
  WorldConfig config;
  config.seed = 1;
  World world(config, false);
  world.run([&] {
    world.admin().configure("q", {{"dedupWindowSeconds", 3600}});
    std::vector<boost::fibers::fiber> fibers;
    for (int p = 0; p < kProducers; ++p) {
      fibers.push_back(world.spawn([&, p] {
        for (int r = 0; r < requests; ++r) {
          nlohmann::json items = nlohmann::json::array();
          for (int i = 0; i < batch; ++i) {
            items.push_back({{"queue", "q"},
                             {"partition", "p" + std::to_string(r % kPartitions)},
                             {"transactionId", "k" + std::to_string(p) + "-" + std::to_string(r) + "-" + std::to_string(i)},
                             {"data", {{"n", r}}}});
          }
          world.push("bench", 0, "producer" + std::to_string(p), items);
        }
      }));
    }
    for (auto& f : fibers) f.join();
  });
  world.finish_history();
  world.history().recorded_outcomes = true;
  world.history().recorded_request_times = true;
  return std::move(world.history());
}

void BM_SimulatedPush(benchmark::State& state) {
  const int64_t window = state.range(0);
  const int requests = static_cast<int>(state.range(1));
  uint64_t seed = 1;
  for (auto _ : state) benchmark::DoNotOptimize(run_world(window, requests, seed++));
  state.SetItemsProcessed(state.iterations() * kProducers * requests);
}

void BM_CheckHistory(benchmark::State& state) {
  const history::History h = run_world(state.range(0), static_cast<int>(state.range(1)), 1);
  for (auto _ : state) benchmark::DoNotOptimize(properties::check_history(h));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(h.requests.size()));
}

// Every checker over the finished history of `qdt bench items`; items are
// pushed items, as there.
void BM_CheckFinishedHistory(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  const int requests = static_cast<int>(state.range(1));
  const history::History h = run_finished_world(batch, requests);
  for (auto _ : state) benchmark::DoNotOptimize(properties::check_history(h));
  state.SetItemsProcessed(state.iterations() * kProducers * requests * batch);
}

// Each checker alone over the same history; items are history events.
void BM_CheckProperty(benchmark::State& state, const std::string& name) {
  static const history::History h = run_world(3600, 1000, 1);
  for (auto _ : state) benchmark::DoNotOptimize(properties::check_property(name, h));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(h.events.size()));
}

// {window seconds, requests per producer}
BENCHMARK(BM_SimulatedPush)->Args({0, 1000})->Args({3600, 1000})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CheckHistory)->Args({3600, 1000})->Unit(benchmark::kMillisecond);
// {batch, requests per producer}: qdt bench's items_per_s.batch1 and .batch10
BENCHMARK(BM_CheckFinishedHistory)->Args({1, 1000})->Args({10, 250})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace qdt::sim

int main(int argc, char** argv) {
  for (const std::string& name : qdt::properties::property_names()) {
    benchmark::RegisterBenchmark(("BM_CheckProperty/" + name).c_str(), qdt::sim::BM_CheckProperty, name)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
