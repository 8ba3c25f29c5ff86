#pragma once
// A Boost.Fiber scheduling algorithm that picks the next ready fiber with the
// run's seeded generator: the interleaving of producers, brokers and storage
// round trips is a function of the seed alone.
//
// The main fiber is the world's event loop: it runs only when no other fiber
// is ready, so `boost::this_fiber::yield()` from main returns exactly when
// every simulated fiber waits (on a virtual timer or a join). It never
// sleeps on real time.
//
// Which ready fiber runs next is the one choice a run makes about its
// interleaving. Without a policy it is uniform over the ready fibers (the
// `random` schedule, unchanged since the first trace was hashed); a
// SchedulePolicy (sim/schedule/pct_policy.h, sim/schedule/choice_policy.h) replaces that pick
// for one run. Policies see fibers by ordinal: the order in which the run
// first saw them ready, stable across re-runs of one schedule, unlike
// context addresses (pooled stacks reuse them).
//
// Every fiber's step (from its pick to its next suspension) gets a footprint
// (sim/schedule/footprint.h): the label the fiber declared for it with
// label_next_step, valid only if the step ends at a suspension labelled with
// the same region (or at the fiber's end, for label_rest_of_fiber);
// otherwise unknown. A fiber's first step is labelled by whoever spawns it
// (label_first_step). Policies are told each step's footprint when it ends,
// and which step made the fiber ready (the search's happens-before: a
// spawn, a wake-up or a timer's instant comes before what it lets run).
// Only fibers of this thread call these; none of it reads the wall clock.
#include <boost/fiber/algo/algorithm.hpp>
#include <boost/fiber/context.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/properties.hpp>
#include <cstdint>
#include <vector>

#include "sim/schedule/footprint.h"
#include "sim/base/rng.h"

namespace qdt::sim {

class SchedulePolicy {
 public:
  // The ordinal reported for the event loop's (and dispatcher's) steps.
  static constexpr uint64_t kLoop = ~uint64_t{0};
  virtual ~SchedulePolicy() = default;
  // `ready`: ordinals of the ready worker fibers (at least one), in no
  // meaningful order. Returns an index into `ready`.
  virtual size_t pick(const std::vector<uint64_t>& ready) = 0;
  // Steps are numbered from 0 in the order they end, the event loop's
  // included; the run's first step is the loop's.
  static constexpr uint64_t kNoStep = ~uint64_t{0};
  // The step of fiber `ordinal` ended (it suspended or finished), having
  // touched `footprint`; `readied_in` is the number of the step during which
  // the fiber was last made ready (kNoStep for the loop, or a fiber readied
  // before the run). Called before the next pick.
  virtual void step_ended(uint64_t ordinal, const Footprint& footprint, uint64_t readied_in) {
    (void)ordinal;
    (void)footprint;
    (void)readied_in;
  }
};

// What the scheduler keeps per fiber (Boost.Fiber's per-context properties).
struct FiberSlot : boost::fibers::fiber_properties {
  explicit FiberSlot(boost::fibers::context* ctx) : fiber_properties(ctx) {}
  // Assigned when a policy first sees the fiber ready in run `generation`:
  // fibers made before the run began (a world's constructor) get theirs in
  // the run's own pick order, so re-runs agree.
  uint64_t ordinal = 0;
  uint64_t generation = 0;
  // The label for the step after the fiber's last suspension, and the one
  // in force for the step now running. Region 0: no label.
  struct Label {
    uint64_t region = 0;
    bool until_exit = false;
    Footprint footprint;
  };
  Label next;
  Label current;
  // The step (numbered per run, as SchedulePolicy's) that last made this
  // fiber ready, and the run it belongs to.
  uint64_t readied_in = 0;
  uint64_t readied_generation = 0;
  bool exiting = false;  // label_fiber_exit(): nothing but the fiber's end follows
};

class SeededScheduler : public boost::fibers::algo::algorithm_with_properties<FiberSlot> {
 public:
  SeededScheduler();
  ~SeededScheduler() override;

  // Installs the algorithm on this thread once; returns it.
  static SeededScheduler& install();

  // The generator that orders ready fibers; a world sets it for its run.
  void set_rng(Rng* rng) { rng_ = rng; }
  // The policy for the next run (null: random). Ordinals restart at 0.
  void set_policy(SchedulePolicy* policy);
  size_t ready_workers() const { return ready_.size(); }
  uint64_t picks() const { return picks_; }

  // Called by a fiber just before it suspends: the step it runs when it is
  // next picked touches only `footprint`, provided that step ends at a
  // suspension labelled with the same `region` (non-zero; new_region()).
  static void label_next_step(uint64_t region, const Footprint& footprint);
  // As label_next_step, for a step that runs to the fiber's end, which calls
  // label_fiber_exit() as its last act. `closes`: the region of a label
  // (say, label_waiting_fiber's) whose step ends at this suspension.
  static void label_rest_of_fiber(const Footprint& footprint, uint64_t closes = 0);
  static void label_fiber_exit();
  // Labels the first step of `fiber`, just made by the calling code and not
  // yet run: valid if it ends at a suspension labelled with `region`.
  static void label_first_step(boost::fibers::fiber& fiber, uint64_t region, const Footprint& footprint);
  // Labels the next step of `waiter`, a suspended fiber the calling code is
  // about to wake (its last step ended when it suspended).
  static void label_waiting_fiber(boost::fibers::context* waiter, uint64_t region, const Footprint& footprint);
  static uint64_t new_region();

  void awakened(boost::fibers::context* ctx, FiberSlot& slot) noexcept override;
  boost::fibers::context* pick_next() noexcept override;
  bool has_ready_fibers() const noexcept override;
  // Virtual time only: nothing to wait for in real time.
  void suspend_until(std::chrono::steady_clock::time_point const&) noexcept override {}
  void notify() noexcept override {}

 private:
  static FiberSlot* active_worker_slot();
  void end_step();

  std::vector<boost::fibers::context*> ready_;  // worker fibers, reserved once
  std::vector<uint64_t> ready_ordinals_;        // scratch for the policy
  boost::fibers::context* main_ = nullptr;
  boost::fibers::context* dispatcher_ = nullptr;
  Rng* rng_ = nullptr;
  Rng fallback_{0};
  SchedulePolicy* policy_ = nullptr;
  FiberSlot* running_ = nullptr;  // the worker whose step is under way
  uint64_t picks_ = 0;
  uint64_t steps_ = 0;  // steps ended in this run: the number of the one under way
  uint64_t next_ordinal_ = 0;
  uint64_t generation_ = 1;
  uint64_t next_region_ = 1;
};

}  // namespace qdt::sim
