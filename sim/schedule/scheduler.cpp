#include "sim/schedule/scheduler.h"

#include <boost/fiber/operations.hpp>
#include <cassert>

namespace qdt::sim {
namespace {
thread_local SeededScheduler* installed = nullptr;

bool is_worker(boost::fibers::context* ctx) {
  return !ctx->is_context(boost::fibers::type::main_context) &&
         !ctx->is_context(boost::fibers::type::dispatcher_context);
}
}  // namespace

SeededScheduler::SeededScheduler() {
  ready_.reserve(1024);
  ready_ordinals_.reserve(1024);
  installed = this;
}

SeededScheduler::~SeededScheduler() {
  if (installed == this) installed = nullptr;
}

SeededScheduler& SeededScheduler::install() {
  if (installed == nullptr) boost::fibers::use_scheduling_algorithm<SeededScheduler>();
  assert(installed != nullptr);
  return *installed;
}

void SeededScheduler::set_policy(SchedulePolicy* policy) {
  // A policy is set between runs, when no worker is ready or running.
  assert(ready_.empty());
  policy_ = policy;
  next_ordinal_ = 0;
  steps_ = 0;
  ++generation_;
}

// The running fiber's slot, or nullptr when main or the dispatcher runs.
// running_ says it: pick_next sets it when it hands a worker the processor
// and end_step clears it when that worker gives the processor up; main and
// the dispatcher have no slot. Asking Boost.Fiber (context::active(), a
// call through __tls_get_addr) on every label and switch costs more.
FiberSlot* SeededScheduler::active_worker_slot() { return installed == nullptr ? nullptr : installed->running_; }

void SeededScheduler::label_next_step(uint64_t region, const Footprint& footprint) {
  assert(region != 0);
  if (FiberSlot* slot = active_worker_slot()) slot->next = {region, false, footprint};
}

void SeededScheduler::label_rest_of_fiber(const Footprint& footprint, uint64_t closes) {
  if (FiberSlot* slot = active_worker_slot()) slot->next = {closes, true, footprint};
}

void SeededScheduler::label_waiting_fiber(boost::fibers::context* waiter, uint64_t region, const Footprint& footprint) {
  assert(region != 0 && waiter != nullptr && is_worker(waiter));
  if (installed == nullptr) return;
  auto* slot = static_cast<FiberSlot*>(waiter->get_properties());
  if (slot != nullptr) slot->next = {region, false, footprint};
}

void SeededScheduler::label_fiber_exit() {
  if (FiberSlot* slot = active_worker_slot()) slot->exiting = true;
}

void SeededScheduler::label_first_step(boost::fibers::fiber& fiber, uint64_t region, const Footprint& footprint) {
  assert(region != 0);
  if (installed == nullptr) return;
  // A fiber is readied (and given its slot) when it is made.
  fiber.properties<FiberSlot>().next = {region, false, footprint};
}

uint64_t SeededScheduler::new_region() {
  assert(installed != nullptr);
  return installed->next_region_++;
}

void SeededScheduler::awakened(boost::fibers::context* ctx, FiberSlot& slot) noexcept {
  if (ctx->is_context(boost::fibers::type::main_context)) {
    main_ = ctx;
  } else if (ctx->is_context(boost::fibers::type::dispatcher_context)) {
    dispatcher_ = ctx;
  } else {
    // Readied by the step under way (a spawn, a wake-up, a timer the loop
    // fired): that step comes before the fiber's next one.
    slot.readied_in = steps_;
    slot.readied_generation = generation_;
    ready_.push_back(ctx);
  }
}

// The step of the fiber giving up the processor ends here. Its label holds
// only if the step ended where the label said it would: at a suspension
// labelled with the same region, or at the fiber's end for a rest-of-fiber
// label. Anything else means the step ran code nobody vouched for.
void SeededScheduler::end_step() {
  FiberSlot* slot = running_;  // the fiber giving up the processor, if a worker
  if (slot == nullptr) {
    if (policy_ != nullptr) policy_->step_ended(SchedulePolicy::kLoop, Footprint(), SchedulePolicy::kNoStep);
    ++steps_;
    return;
  }
  running_ = nullptr;
  const FiberSlot::Label& start = slot->current;
  Footprint footprint;
  if (start.until_exit ? slot->exiting : (start.region != 0 && slot->next.region == start.region)) {
    footprint = start.footprint;
  }
  const uint64_t readied_in = slot->readied_generation == generation_ ? slot->readied_in : SchedulePolicy::kNoStep;
  if (policy_ != nullptr) policy_->step_ended(slot->ordinal, footprint, readied_in);
  ++steps_;
}

boost::fibers::context* SeededScheduler::pick_next() noexcept {
  end_step();
  if (!ready_.empty()) {
    size_t i = 0;
    if (policy_ == nullptr) {
      Rng& rng = rng_ ? *rng_ : fallback_;
      i = ready_.size() == 1 ? 0 : static_cast<size_t>(rng.below(ready_.size()));
    } else {
      ready_ordinals_.clear();
      for (boost::fibers::context* ctx : ready_) {
        FiberSlot& slot = properties(ctx);
        if (slot.generation != generation_) {
          slot.generation = generation_;
          slot.ordinal = next_ordinal_++;
        }
        ready_ordinals_.push_back(slot.ordinal);
      }
      i = policy_->pick(ready_ordinals_);
      assert(i < ready_.size());
    }
    boost::fibers::context* ctx = ready_[i];
    ready_[i] = ready_.back();
    ready_.pop_back();
    ++picks_;
    FiberSlot& slot = properties(ctx);
    slot.current = slot.next;
    slot.next = {};
    running_ = &slot;
    return ctx;
  }
  // The dispatcher releases finished fibers; main (the event loop) goes last.
  if (dispatcher_ != nullptr) return std::exchange(dispatcher_, nullptr);
  return std::exchange(main_, nullptr);
}

bool SeededScheduler::has_ready_fibers() const noexcept {
  return !ready_.empty() || main_ != nullptr || dispatcher_ != nullptr;
}

}  // namespace qdt::sim
