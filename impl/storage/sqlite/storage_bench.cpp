// Storage push throughput, in memory: dedup off (the allocating UPDATE
// alone, no probe), dedup on with a full-window probe, dedup on with a
// watermark that vouches for everything before (what a warm cache sends),
// and the transaction by probe span and batch size.
// Run: build/impl/storage_bench
#include <benchmark/benchmark.h>

#include <vector>

#include "impl/storage/sqlite/storage.h"

namespace qdt::impl {
namespace {

SegmentPush segment(uint64_t n, int64_t p_verified, int batch) {
  SegmentPush s;
  s.queue = "q";
  s.partition = "p";
  s.p_verified = p_verified;
  s.window_seconds_assumed = 3600;
  for (int i = 0; i < batch; ++i) {
    Frame f;
    const uint64_t key = n * 1000 + static_cast<uint64_t>(i);
    f.message_id = make_uuid_v7(1'767'225'600'000, key, key);
    f.transaction_id = "txn-" + std::to_string(key);
    f.payload = R"({"n":1})";
    f.hash = hash_transaction_id(f.transaction_id);
    s.frames.push_back(std::move(f));
  }
  return s;
}

SegmentPush one_frame(uint64_t n, int64_t p_verified) { return segment(n, p_verified, 1); }

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

// {probe span in rows, frames per push}: the partition first holds `span`
// rows; every push's watermark then leaves exactly the last `span` rows to
// probe (span 0: the probe is skipped). Items are frames.
void BM_PushBySpanAndBatch(benchmark::State& state) {
  const int64_t span = state.range(0);
  const int batch = static_cast<int>(state.range(1));
  ManualClock clock(1'000'000);
  Storage storage(clock);
  storage.set_options("q", {.dedup_window_seconds = 3600});
  std::vector<int64_t> ends;  // end offset of every row, in order
  uint64_t n = 0;
  auto push = [&](int64_t p_verified) {
    const PushResult r = storage.push(segment(n++, p_verified, batch));
    if (!r.queued) state.SkipWithError("a fresh key was not queued");
    ends.push_back(r.base_offset + batch - 1);
    return r;
  };
  for (int64_t i = 0; i < span; ++i) push(ends.empty() ? -1 : ends.back());
  uint64_t scanned = 0;
  for (auto _ : state) {
    const int64_t p_verified = span == 0 ? (ends.empty() ? -1 : ends.back())
                                         : (static_cast<int64_t>(ends.size()) > span ? ends[ends.size() - span - 1] : -1);
    scanned += push(p_verified).rows_scanned;
  }
  state.SetItemsProcessed(state.iterations() * batch);
  state.counters["rows_scanned_per_push"] =
      benchmark::Counter(static_cast<double>(scanned) / static_cast<double>(std::max<int64_t>(state.iterations(), 1)));
}
BENCHMARK(BM_PushBySpanAndBatch)->ArgsProduct({{0, 10, 100, 1000, 10000}, {1, 10, 100}});

}  // namespace
}  // namespace qdt::impl

BENCHMARK_MAIN();
