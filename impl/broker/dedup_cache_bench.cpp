// The dedup cache's operations, with no storage behind it (a fake sidecar):
// the watermark answer on a warm partition by rows resident, record_queued
// after a commit, the steady state of a full window (one row expires per
// flush), and a full hydration. Run: build/impl/dedup_cache_bench
#include <benchmark/benchmark.h>

#include "impl/broker/dedup_cache.h"
#include "impl/broker/dedup_cache_fake_storage_test.h"

namespace qdt::impl {
namespace {

using testing_cache::FakeStorage;
using testing_cache::h;

constexpr int64_t kWindowSeconds = 3600;

// A partition of `rows` one-hash rows, hydrated into `cache`.
void warm(DedupCache& cache, FakeStorage& storage, int64_t rows) {
  for (int64_t i = 0; i < rows; ++i) storage.commit("q", "p", {h(static_cast<uint64_t>(i))});
  cache.watermark("q", "p", {h(1u << 30)}, storage.now, kWindowSeconds, storage);
}

// {rows resident}: a flush of one fresh hash (no hit), then its commit.
void BM_CacheWatermarkAndRecord(benchmark::State& state) {
  FakeStorage storage;
  DedupCache cache;
  warm(cache, storage, state.range(0));
  uint64_t n = 1u << 31;
  for (auto _ : state) {
    const std::vector<Hash128> hashes = {h(n++)};
    const int64_t wm = cache.watermark("q", "p", hashes, storage.now, kWindowSeconds, storage);
    const int64_t base = storage.commit("q", "p", hashes);
    cache.record_queued("q", "p", base, base, storage.now, hashes, kWindowSeconds);
    benchmark::DoNotOptimize(wm);
  }
  state.SetItemsProcessed(state.iterations());
  const DedupCache::Stats s = cache.stats();
  state.counters["bytes_per_hash"] = static_cast<double>(s.bytes) / static_cast<double>(std::max<uint64_t>(s.hashes, 1));
}
BENCHMARK(BM_CacheWatermarkAndRecord)->Arg(1000)->Arg(10000)->Arg(100000);

// {rows resident}: the steady state of a full window: rows were committed a
// window apart in time, so each flush expires the oldest row (the front of
// the flat buffers and a tombstone in the index) and its commit appends one.
void BM_CacheSteadyWindow(benchmark::State& state) {
  FakeStorage storage;
  DedupCache cache;
  const int64_t rows = state.range(0);
  const int64_t step_ms = kWindowSeconds * 1000 / rows;
  for (int64_t i = 0; i < rows; ++i) {
    storage.commit("q", "p", {h(static_cast<uint64_t>(i))});
    storage.now += step_ms;
  }
  cache.watermark("q", "p", {h(1u << 30)}, storage.now, kWindowSeconds, storage);
  uint64_t n = 1u << 31;
  for (auto _ : state) {
    const std::vector<Hash128> hashes = {h(n++)};
    const int64_t base = storage.commit("q", "p", hashes);
    cache.record_queued("q", "p", base, base, storage.now, hashes, kWindowSeconds);
    storage.now += step_ms;
    benchmark::DoNotOptimize(cache.watermark("q", "p", hashes, storage.now, kWindowSeconds, storage));
  }
  state.SetItemsProcessed(state.iterations());
  const DedupCache::Stats s = cache.stats();
  state.counters["bytes_per_hash"] = static_cast<double>(s.bytes) / static_cast<double>(std::max<uint64_t>(s.hashes, 1));
}
BENCHMARK(BM_CacheSteadyWindow)->Arg(1000)->Arg(100000);

// {rows resident}: a flush whose hash the cache holds: answers -1.
void BM_CacheWatermarkHit(benchmark::State& state) {
  FakeStorage storage;
  DedupCache cache;
  warm(cache, storage, state.range(0));
  const std::vector<Hash128> held = {h(7)};
  for (auto _ : state) benchmark::DoNotOptimize(cache.watermark("q", "p", held, storage.now, kWindowSeconds, storage));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CacheWatermarkHit)->Arg(1000)->Arg(100000);

// {rows}: a cold cache hydrating the whole window. Items are rows.
void BM_CacheHydrate(benchmark::State& state) {
  FakeStorage storage;
  for (int64_t i = 0; i < state.range(0); ++i) storage.commit("q", "p", {h(static_cast<uint64_t>(i))});
  for (auto _ : state) {
    DedupCache cache;
    benchmark::DoNotOptimize(cache.watermark("q", "p", {h(1u << 30)}, storage.now, kWindowSeconds, storage));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_CacheHydrate)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace qdt::impl

BENCHMARK_MAIN();
