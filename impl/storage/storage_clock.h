#pragma once
// Storage's own clock, shared by every engine.
#include <cstdint>

namespace qdt::impl {

// The storage clock (docs/semantics.md §2.4 step 1): storage reads it itself, under the
// write lock, never trusting a time the caller computed before the lock.
class StorageClock {
 public:
  virtual ~StorageClock() = default;
  virtual int64_t now_ms() = 0;
};

// A clock a test sets by hand.
class ManualClock : public StorageClock {
 public:
  explicit ManualClock(int64_t now_ms = 0) : now_ms_(now_ms) {}
  int64_t now_ms() override { return now_ms_; }
  void set(int64_t now_ms) { now_ms_ = now_ms; }

 private:
  int64_t now_ms_;
};

}  // namespace qdt::impl
