// Storage push throughput, in memory: dedup off (the single UPDATE ...
// RETURNING path), dedup on with a full-window probe, and dedup on with a
// watermark that vouches for everything before (what a warm cache sends).
// Run: build/impl/storage_bench
#include <benchmark/benchmark.h>

#include "impl/storage.h"

namespace qdt::impl {
namespace {

SegmentPush one_frame(uint64_t n, int64_t p_verified) {
  SegmentPush s;
  s.queue = "q";
  s.partition = "p";
  s.p_verified = p_verified;
  s.window_seconds_assumed = 3600;
  Frame f;
  f.message_id = make_uuid_v7(1'767'225'600'000, n, n);
  f.transaction_id = "txn-" + std::to_string(n);
  f.payload = R"({"n":1})";
  f.hash = hash_transaction_id(f.transaction_id);
  s.frames.push_back(std::move(f));
  return s;
}

void push_loop(benchmark::State& state, int64_t window_seconds, bool watermark) {
  ManualClock clock(1'000'000);
  Storage storage(clock);
  storage.set_options("q", {.dedup_window_seconds = window_seconds});
  uint64_t n = 0;
  for (auto _ : state) {
    const PushResult r = storage.push(one_frame(n, watermark ? static_cast<int64_t>(n) - 1 : -1));
    benchmark::DoNotOptimize(r);
    ++n;
  }
  state.SetItemsProcessed(static_cast<int64_t>(n));
}

void BM_PushDedupOff(benchmark::State& state) { push_loop(state, 0, false); }
void BM_PushFullProbe(benchmark::State& state) { push_loop(state, 3600, false); }
void BM_PushWatermarked(benchmark::State& state) { push_loop(state, 3600, true); }

// The full probe grows with the partition; bound the iterations so runs compare.
BENCHMARK(BM_PushDedupOff)->Iterations(20000);
BENCHMARK(BM_PushFullProbe)->Iterations(20000);
BENCHMARK(BM_PushWatermarked)->Iterations(20000);

}  // namespace
}  // namespace qdt::impl

BENCHMARK_MAIN();
