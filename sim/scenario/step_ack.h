#pragma once
// The `ack` step: a consumer group acknowledges a transactionId of a partition.
#include <string>

#include "sim/scenario/scenario.h"

namespace qdt::sim {

struct AckArgs {
  std::string queue;
  std::string partition = "Default";
  std::string transaction_id;
  std::string consumer_group = "default";
};

extern const StepKind ack_step;

}  // namespace qdt::sim
