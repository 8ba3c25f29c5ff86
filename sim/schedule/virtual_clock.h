#pragma once
// Virtual time as a discrete-event loop: a fiber that sleeps registers a
// timer and suspends; when every fiber waits, the event loop (main fiber)
// jumps the clock to the earliest timer and wakes every fiber whose timer is
// due at that instant at once. Nothing ever sleeps in real time. Ties are not
// broken by registration order: all of them are ready together and the
// seeded scheduler picks among them, so zero-latency worlds (where many
// fibers meet at one instant) still explore interleavings. Same seed, same
// order: timers are readied in registration order, the scheduler's pick is
// the only choice, and no unordered container is iterated.
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

  // A wait that another fiber can end early (a response arriving before the
  // producer's timeout). Lives on the waiting fiber's stack for the wait.
  struct Wakeup {
    boost::fibers::context* ctx = nullptr;
    bool waiting = false;
    bool woken = false;
    uint64_t timer = 0;
  };
  // Suspends the calling fiber until wake(w) or until `ms` pass; true when woken.
  bool wait_for(int64_t ms, Wakeup& w);
  // Ends `w`'s wait now (no-op when it is not waiting); its timer is cancelled.
  void wake(Wakeup& w);

  // Event loop only: advances to the earliest live timer and readies the
  // fibers of every live timer due at that instant. false when no timer is
  // pending.
  bool fire_next();

  size_t pending() const { return heap_.size() - cancelled_in_heap_; }
  // How many times cancelled timers were dropped from the heap at once.
  uint64_t compactions() const { return compactions_; }

 private:
  struct Timer {
    int64_t at_ms;
    uint64_t seq;
    boost::fibers::context* ctx;
    Wakeup* wakeup;  // null for a plain sleep; valid while not cancelled
  };
  // A type, not a function pointer, so the heap's comparisons inline.
  struct Later {
    bool operator()(const Timer& a, const Timer& b) const {
      return a.at_ms != b.at_ms ? a.at_ms > b.at_ms : a.seq > b.seq;
    }
  };
  bool cancelled(uint64_t seq) const { return seq < cancelled_.size() && cancelled_[seq]; }
  static constexpr size_t kCompactAtLeast = 64;  // small heaps are cheap to keep
  std::vector<Timer> heap_;
  // By seq (dense from 0): the timer's wait ended early. A flag per timer
  // ever set, cheaper than a hash set of the live ones; a world sets tens of
  // thousands at most.
  std::vector<bool> cancelled_;
  size_t cancelled_in_heap_ = 0;
  uint64_t compactions_ = 0;
  uint64_t seq_ = 0;
  int64_t now_ms_ = 0;
};

}  // namespace qdt::sim
