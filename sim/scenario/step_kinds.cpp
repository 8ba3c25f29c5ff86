#include "sim/scenario/step_kinds.h"

#include <cstring>

namespace qdt::sim {

// Every step kind, one line each; kind NAME is `NAME_step`, defined in its own
// file sim/scenario/step_NAME.cpp (parallel, sequence, repeat: step_composite.cpp).
#define QDT_STEP_KINDS(X) \
  X(push)                 \
  X(parallel)             \
  X(sequence)             \
  X(repeat)               \
  X(advance)              \
  X(configure)            \
  X(retention)            \
  X(delete_segment)       \
  X(storage_fail)         \
  X(ack)                  \
  X(read)                 \
  X(skew)                 \
  X(network)              \
  X(crash_broker)         \
  X(crash_storage)        \
  X(evict_cache)          \
  X(cache)

#define QDT_DECLARE_STEP_KIND(name) extern const StepKind name##_step;
QDT_STEP_KINDS(QDT_DECLARE_STEP_KIND)
#undef QDT_DECLARE_STEP_KIND

namespace {

#define QDT_STEP_KIND_ENTRY(name) &name##_step,
const StepKind* const kStepKinds[] = {QDT_STEP_KINDS(QDT_STEP_KIND_ENTRY)};
#undef QDT_STEP_KIND_ENTRY

}  // namespace

const StepKind* step_kind(const std::string& name) {
  for (const StepKind* kind : kStepKinds) {
    if (name == kind->name) return kind;
  }
  return nullptr;
}

}  // namespace qdt::sim
