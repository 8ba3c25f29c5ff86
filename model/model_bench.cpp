// The executable specification's step: Partition::push of one fresh frame
// by keys already in the partition (the checkers replay every storage push
// through it). Run: build/model/model_bench
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "model/model.h"

namespace qdt::model {
namespace {

// {messages already in the partition}: one fresh frame per push, window 3600 s.
void BM_ModelPush(benchmark::State& state) {
  Partition p;
  int64_t now = 1'000'000;
  uint64_t n = 0;
  auto frame = [&] { return std::vector<Frame>{{"id-" + std::to_string(n), "key-" + std::to_string(n++)}}; };
  for (int64_t i = 0; i < state.range(0); ++i) p.push(frame(), now, 3600);
  for (auto _ : state) {
    state.PauseTiming();
    const std::vector<Frame> f = frame();
    state.ResumeTiming();
    benchmark::DoNotOptimize(p.push(f, ++now, 3600));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ModelPush)->Arg(0)->Arg(10000)->Arg(100000);

// A repeated key: the probe finds it, nothing is written.
void BM_ModelProbeDuplicate(benchmark::State& state) {
  Partition p;
  for (int64_t i = 0; i < state.range(0); ++i) p.push({{"id-" + std::to_string(i), "key-" + std::to_string(i)}}, 1000, 3600);
  const std::vector<Frame> repeat = {{"id-x", "key-0"}};
  for (auto _ : state) benchmark::DoNotOptimize(p.probe(repeat, 2000, 3600));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ModelProbeDuplicate)->Arg(1000)->Arg(100000);

}  // namespace
}  // namespace qdt::model

BENCHMARK_MAIN();
