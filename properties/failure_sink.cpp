#include "properties/failure_sink.h"

#include <cassert>
#include <utility>

namespace qdt::properties {

std::string partition_label(std::string_view queue, std::string_view partition) {
  std::string out;
  out.reserve(queue.size() + 1 + partition.size());
  return out.append(queue).append("/").append(partition);
}

FailureSink::FailureSink(std::string property, size_t cap) : property_(std::move(property)), cap_(cap) {
  assert(!property_.empty());
  assert(cap_ > 0);
}

void FailureSink::add(std::string step, std::string partition, std::string detail) {
  assert(!detail.empty());
  ++count_;
  if (failures_.size() < cap_) {
    failures_.push_back(Failure{property_, std::move(step), std::move(partition), std::move(detail)});
  }
}

std::vector<Failure> FailureSink::take() {
  assert(failures_.size() <= count_);
  if (count_ > failures_.size()) {
    failures_.push_back(Failure{property_, "", "",
                                std::to_string(count_ - failures_.size()) + " more failures of " + property_ +
                                    " not shown (first " + std::to_string(cap_) + " kept)"});
  }
  count_ = 0;
  return std::move(failures_);
}

}  // namespace qdt::properties
