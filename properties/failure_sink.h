#pragma once
// Collects one property's failures. A broken implementation usually fails on
// every later event too; the first failures explain it, so only the first
// `cap` are kept in full and the rest are counted in one closing summary.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "properties/checkers.h"
#include "properties/history.h"
#include "properties/step_index.h"

namespace qdt::properties {

inline constexpr size_t kFailureCap = 50;

// "queue/partition", the spelling every Failure uses.
std::string partition_label(std::string_view queue, std::string_view partition);

// "event 4 (step s1, at 1767225600057 ms)": how a Failure cites events[e], so a
// reader finds it in the trace; the step is left out when it is `own_step` (the
// failure's own), and a fetch, a read or a failed push has no time.
std::string event_label(const history::History& history, const StepIndex& steps, size_t e,
                        std::string_view own_step = "");
// The same from its parts: an empty step or a negative time is left out.
std::string event_label(size_t e, std::string_view step, int64_t at_ms);

class FailureSink {
 public:
  explicit FailureSink(std::string property, size_t cap = kFailureCap);
  // `rule` is one of this sink's property; `failure` carries the rest
  // (designated fields: {.step = ..., .detail = ...}), property and rule unset.
  void add(Rule rule, Failure failure);
  size_t count() const { return count_; }
  // The kept failures, plus a summary when some were dropped.
  std::vector<Failure> take();

 private:
  std::string property_;
  size_t cap_;
  size_t count_ = 0;
  std::vector<Failure> failures_;
};

}  // namespace qdt::properties
