#pragma once
// The step kinds of the scenario format, one table as FoundationDB registers
// its workloads: each kind's reading, running and timeline text live in its
// own file (sim/scenario/step_<name>.cpp) and are registered here by name.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/scenario/scenario.h"

namespace qdt::sim {

class StepLoader;
class StepRunner;

// What a step adds to the script's run size (sim/scenario/step_loader.h),
// which bounds the wall time and memory a run can take.
struct StepCost {
  int64_t advance_ms = 0;
  int64_t attempts = 0;     // push deliveries, retries included
  int64_t items_bytes = 0;  // pushed items as JSON text
  int64_t crashes = 0;      // crash_storage steps
  int64_t times = 1;        // how many times the children run
};

struct StepKind {
  const char* name;  // as the format writes it in "op"
  // Reads the kind's own fields (the loader has read "op" and "id").
  void (*read)(StepLoader& loader, const nlohmann::json& j, const std::string& path, Step& step);
  void (*run)(StepRunner& runner, const Step& step, uint64_t send_region);
  // One line for the timeline (sim/scenario/timeline.h): the step's arguments.
  std::string (*summary)(const Step& step);
  // Injects a fault or changes the world under the producers (the timeline lists it as a fault).
  bool fault = false;
  // Reads `expect/<id>` for a step of this kind; null when the kind has no expectations.
  void (*read_expect)(StepLoader& loader, const nlohmann::json& value, const std::string& path,
                      const std::string& id, StepExpect& expect) = nullptr;
  // Null: the step costs one step and nothing else.
  StepCost (*cost)(const Step& step) = nullptr;
};

// The kind the format names `name`, or null.
const StepKind* step_kind(const std::string& name);

}  // namespace qdt::sim
