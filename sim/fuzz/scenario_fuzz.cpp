// libFuzzer harness: the scenario loader (sim/scenario/scenario.h) on any bytes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/fuzz/fuzz_contract.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/step_composite.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const qdt::sim::LoadResult r = qdt::sim::load_scenario_text(text, "fuzz.json");
  qdt::fuzz::check_load(r.scenario.has_value(), r.errors);
  if (r.scenario) {
    // The declared bounds hold for whatever was accepted.
    for (const qdt::sim::Step& s : r.scenario->steps) {
      if (s.kind == &qdt::sim::repeat_step) {
        const int64_t times = s.as<qdt::sim::RepeatArgs>().times;
        if (times < 1 || times > qdt::sim::kMaxRepeatTimes) {
          qdt::fuzz::contract_broken("repeat times out of bounds", std::to_string(times));
        }
      }
      (void)qdt::sim::op_name(s);
    }
  }
  return 0;
}
