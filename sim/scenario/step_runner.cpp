#include "sim/scenario/step_runner.h"

#include "sim/scenario/step_kinds.h"

namespace qdt::sim {

void StepRunner::run(const Step& step, uint64_t send_region) {
  const int64_t started_ms = world_.clock().now_ms();
  step.kind->run(*this, step, send_region);
  out_.times[step.path] = {started_ms, world_.clock().now_ms()};
}

}  // namespace qdt::sim
