#pragma once
// Collects one property's failures. A broken implementation usually fails on
// every later event too; the first failures explain it, so only the first
// `cap` are kept in full and the rest are counted in one closing summary.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "properties/checkers.h"

namespace qdt::properties {

inline constexpr size_t kFailureCap = 50;

// "queue/partition", the spelling every Failure uses.
std::string partition_label(std::string_view queue, std::string_view partition);

class FailureSink {
 public:
  explicit FailureSink(std::string property, size_t cap = kFailureCap);
  void add(std::string step, std::string partition, std::string detail);
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
