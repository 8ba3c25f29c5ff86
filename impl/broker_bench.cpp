// The broker's push path (validate, group, hash, mint ids, cache watermark,
// storage transaction, response) with storage called directly, in memory:
// fresh keys by batch size with the cache on and off, and a repeated key
// (the duplicate answer and its id resolution). Run: build/impl/broker_bench
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include "impl/broker.h"
#include "impl/storage.h"

namespace qdt::impl {
namespace {

struct BenchClock : BrokerClock, StorageClock {
  int64_t now = 1'767'225'600'000;
  int64_t now_ms() override { return now; }
};
struct CountingRandom : RandomSource {
  uint64_t n = 0;
  uint64_t next_u64() override { return ++n * 0x9e3779b97f4a7c15ULL; }
};
struct DirectPort : StoragePort {
  explicit DirectPort(Storage& s) : storage(s) {}
  Storage& storage;
  PushResult push(const SegmentPush& segment) override { return storage.push(segment); }
  std::optional<CoveringSegment> covering_segment(const std::string& q, const std::string& p, int64_t o) override {
    return storage.covering_segment(q, p, o);
  }
  SidecarRead sidecar_rows(const std::string& q, const std::string& p, int64_t after, int64_t since) override {
    return storage.read_sidecar(q, p, after, since);
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
  BenchClock clock;
  Storage storage(clock);
  storage.set_options("q", {.dedup_window_seconds = 3600});
  DirectPort port(storage);
  CountingRandom random;
  Broker broker(0, clock, random, port);
  broker.configure_cache({.enabled = state.range(1) != 0});
  uint64_t n = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const nlohmann::json r = request(n++, batch);
    clock.now += 1;
    state.ResumeTiming();
    benchmark::DoNotOptimize(broker.push(r, n));
  }
  state.SetItemsProcessed(state.iterations() * batch);
}
// Without the cache the probe scans the growing partition: bound the iterations.
BENCHMARK(BM_BrokerPushFresh)->ArgsProduct({{1, 10, 100}, {0, 1}})->Iterations(1000);

// The same key again and again: every push after the first is a duplicate.
void BM_BrokerPushDuplicate(benchmark::State& state) {
  BenchClock clock;
  Storage storage(clock);
  storage.set_options("q", {.dedup_window_seconds = 3600});
  DirectPort port(storage);
  CountingRandom random;
  Broker broker(0, clock, random, port);
  const nlohmann::json r = request(0, 1);
  broker.push(r, 0);
  uint64_t n = 1;
  for (auto _ : state) benchmark::DoNotOptimize(broker.push(r, n++));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BrokerPushDuplicate);

}  // namespace
}  // namespace qdt::impl

BENCHMARK_MAIN();
