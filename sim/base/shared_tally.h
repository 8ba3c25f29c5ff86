#pragma once
// Counts that forked workers add to and any of them reads: one slot per
// worker in memory shared across fork(), so the worker that prints progress
// can say how many seeds every worker has run and failed, not only its own.
// Progress text only: no result depends on it.
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace qdt::sim {

class SharedTally {
 public:
  // `workers` slots, zeroed; mapped before the workers are forked.
  explicit SharedTally(size_t workers);
  ~SharedTally();
  SharedTally(const SharedTally&) = delete;
  SharedTally& operator=(const SharedTally&) = delete;

  void add(size_t worker, uint64_t done, uint64_t failed);
  // Over every worker's slot.
  uint64_t done() const;
  uint64_t failed() const;

 private:
  struct Slot {
    std::atomic<uint64_t> done;
    std::atomic<uint64_t> failed;
  };
  Slot* slots_ = nullptr;
  size_t workers_ = 0;
};

}  // namespace qdt::sim
