// libFuzzer harness: the sweep loader (sim/study/sweep.h) on any bytes. A sweep may
// name a base scenario file relative to its own folder; the harness places a
// small valid one, base.json, in a private temporary folder so that the
// fuzzer reaches the knob rules with either base (profile or scenario).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/fuzz/fuzz_contract.h"
#include "sim/study/sweep.h"
#include "sim/study/sweep_points.h"

namespace {

const char* kBase = R"({"name": "base", "world": {"brokers": 2},
  "queues": {"q": {"dedupWindowSeconds": 60}},
  "steps": [{"op": "push", "items": [{"queue": "q", "transactionId": "t", "data": 1}]},
            {"op": "advance", "seconds": 1}]})";

// The sweep's base file, in a folder of the process's own, removed at exit.
struct SweepFolder {
  std::string dir = (std::filesystem::temp_directory_path() / "qdt-fuzz-sweep-XXXXXX").string();
  SweepFolder() {
    if (!mkdtemp(dir.data())) std::abort();
    std::ofstream(dir + "/base.json") << kBase;
  }
  ~SweepFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

std::string sweep_file() {
  static const SweepFolder folder;
  return folder.dir + "/sweep.json";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qdt::sim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const SweepLoad r = load_sweep_text(text, sweep_file());
  qdt::fuzz::check_load(r.sweep.has_value(), r.errors);
  if (!r.sweep) return 0;
  const Sweep& s = *r.sweep;
  if (s.seeds < 1 || s.seeds > kMaxSweepSeeds) qdt::fuzz::contract_broken("seeds out of bounds", std::to_string(s.seeds));
  if (point_count(s) > kMaxSweepPoints) qdt::fuzz::contract_broken("too many points", std::to_string(point_count(s)));
  // The first point's scenario: built, then loaded like any scenario.
  const Point first(s.knobs.size(), 0);
  const PointDocument p = point_document(s, first, s.first_seed);
  if (!p.error) {
    const LoadResult loaded = load_scenario_text(p.doc.dump(), "point.json");
    qdt::fuzz::check_load(loaded.scenario.has_value(), loaded.errors);
  }
  return 0;
}
