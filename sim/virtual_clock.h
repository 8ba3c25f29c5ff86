#pragma once
// Virtual time as a discrete-event loop: a fiber that sleeps registers a
// timer and suspends; when every fiber waits, the event loop (main fiber)
// jumps the clock to the earliest timer and wakes its fiber. Nothing ever
// sleeps in real time. Ties fire in registration order.
#include <boost/fiber/context.hpp>
#include <cstdint>
#include <vector>

namespace qdt::sim {

class VirtualClock {
 public:
  VirtualClock() { heap_.reserve(1024); }

  // Milliseconds since the run started.
  int64_t now_ms() const { return now_ms_; }

  // Suspends the calling (non-main) fiber for `ms` >= 0 virtual milliseconds.
  // A 0 ms sleep still lets every other ready fiber and due timer go first.
  void sleep_for(int64_t ms);

  // Event loop only: advances to the earliest timer and readies its fiber.
  // false when no timer is pending.
  bool fire_next();

  size_t pending() const { return heap_.size(); }

 private:
  struct Timer {
    int64_t at_ms;
    uint64_t seq;
    boost::fibers::context* ctx;
  };
  static bool later(const Timer& a, const Timer& b) {
    return a.at_ms != b.at_ms ? a.at_ms > b.at_ms : a.seq > b.seq;
  }
  std::vector<Timer> heap_;
  uint64_t seq_ = 0;
  int64_t now_ms_ = 0;
};

}  // namespace qdt::sim
