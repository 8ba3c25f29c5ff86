#include "sim/base/shared_tally.h"

#include <sys/mman.h>

#include <cassert>
#include <new>

namespace qdt::sim {

static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared across processes, so lock-free");

SharedTally::SharedTally(size_t workers) : workers_(workers) {
  assert(workers >= 1);
  void* memory = mmap(nullptr, sizeof(Slot) * workers, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
  slots_ = static_cast<Slot*>(memory);
  for (size_t i = 0; i < workers; ++i) new (&slots_[i]) Slot{{0}, {0}};
}

SharedTally::~SharedTally() { munmap(slots_, sizeof(Slot) * workers_); }

void SharedTally::add(size_t worker, uint64_t done, uint64_t failed) {
  assert(worker < workers_);
  slots_[worker].done.fetch_add(done, std::memory_order_relaxed);
  slots_[worker].failed.fetch_add(failed, std::memory_order_relaxed);
}

uint64_t SharedTally::done() const {
  uint64_t sum = 0;
  for (size_t i = 0; i < workers_; ++i) sum += slots_[i].done.load(std::memory_order_relaxed);
  return sum;
}

uint64_t SharedTally::failed() const {
  uint64_t sum = 0;
  for (size_t i = 0; i < workers_; ++i) sum += slots_[i].failed.load(std::memory_order_relaxed);
  return sum;
}

}  // namespace qdt::sim
