#pragma once
// A Boost.Fiber scheduling algorithm that picks the next ready fiber with the
// run's seeded generator: the interleaving of producers, brokers and storage
// round trips is a function of the seed alone.
//
// The main fiber is the world's event loop: it runs only when no other fiber
// is ready, so `boost::this_fiber::yield()` from main returns exactly when
// every simulated fiber waits (on a virtual timer or a join). It never
// sleeps on real time.
#include <boost/fiber/algo/algorithm.hpp>
#include <boost/fiber/context.hpp>
#include <vector>

#include "sim/rng.h"

namespace qdt::sim {

class SeededScheduler : public boost::fibers::algo::algorithm {
 public:
  SeededScheduler();
  ~SeededScheduler() override;

  // Installs the algorithm on this thread once; returns it.
  static SeededScheduler& install();

  // The generator that orders ready fibers; a world sets it for its run.
  void set_rng(Rng* rng) { rng_ = rng; }
  size_t ready_workers() const { return ready_.size(); }
  uint64_t picks() const { return picks_; }

  void awakened(boost::fibers::context* ctx) noexcept override;
  boost::fibers::context* pick_next() noexcept override;
  bool has_ready_fibers() const noexcept override;
  // Virtual time only: nothing to wait for in real time.
  void suspend_until(std::chrono::steady_clock::time_point const&) noexcept override {}
  void notify() noexcept override {}

 private:
  std::vector<boost::fibers::context*> ready_;  // worker fibers, reserved once
  boost::fibers::context* main_ = nullptr;
  boost::fibers::context* dispatcher_ = nullptr;
  Rng* rng_ = nullptr;
  Rng fallback_{0};
  uint64_t picks_ = 0;
};

}  // namespace qdt::sim
