// The broker's push path (validate, group, hash, mint ids, cache watermark,
// storage transaction, response) with storage called directly, in memory:
// fresh keys by batch size with the cache on and off, and a repeated key
// (the duplicate answer and its id resolution). Run: build/impl/broker_bench
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include "impl/broker/broker.h"
#include "impl/broker/direct_ports_test.h"
#include "impl/storage/sqlite/storage.h"

namespace qdt::impl {
namespace {

// A broker over in-memory storage, window 3600 s, hydration served.
struct Rig {
  testing_broker::FixedClock clock;
  testing_broker::CountingRandom random;
  testing_broker::DirectStorage storage{clock};
  Broker broker{0, clock, random, storage};
  Rig() {
    storage.serve_hydration = true;
    storage.storage.set_options("q", {.dedup_window_seconds = 3600});
  }
};

nlohmann::json request(uint64_t n, int batch) {
  nlohmann::json items = nlohmann::json::array();
  for (int i = 0; i < batch; ++i) {
    items.push_back({{"queue", "q"},
                     {"partition", "p"},
                     {"transactionId", "k" + std::to_string(n) + "-" + std::to_string(i)},
                     {"data", {{"n", i}}}});
  }
  return items;
}

// {frames per request, cache on}: fresh keys into one partition, window 3600 s.
void BM_BrokerPushFresh(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  Rig rig;
  rig.broker.configure_cache({.enabled = state.range(1) != 0});
  uint64_t n = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const nlohmann::json r = request(n++, batch);
    rig.clock.now += 1;
    state.ResumeTiming();
    benchmark::DoNotOptimize(rig.broker.push(r, n));
  }
  state.SetItemsProcessed(state.iterations() * batch);
}
// Without the cache the probe scans the growing partition: bound the iterations.
BENCHMARK(BM_BrokerPushFresh)->ArgsProduct({{1, 10, 100}, {0, 1}})->Iterations(1000);

// The same key again and again: every push after the first is a duplicate.
void BM_BrokerPushDuplicate(benchmark::State& state) {
  Rig rig;
  const nlohmann::json r = request(0, 1);
  rig.broker.push(r, 0);
  uint64_t n = 1;
  for (auto _ : state) benchmark::DoNotOptimize(rig.broker.push(r, n++));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BrokerPushDuplicate);

}  // namespace
}  // namespace qdt::impl

BENCHMARK_MAIN();
