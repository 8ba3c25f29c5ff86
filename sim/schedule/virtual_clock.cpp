#include "sim/schedule/virtual_clock.h"

#include <algorithm>
#include <cassert>

namespace qdt::sim {

void VirtualClock::sleep_for(int64_t ms) {
  assert(ms >= 0);
  boost::fibers::context* self = boost::fibers::context::active();
  assert(!self->is_context(boost::fibers::type::main_context) && "the event loop never sleeps");
  heap_.push_back({now_ms_ + ms, seq_++, self, nullptr});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  self->suspend();
}

bool VirtualClock::wait_for(int64_t ms, Wakeup& w) {
  assert(ms >= 0);
  assert(!w.waiting);
  w.ctx = boost::fibers::context::active();
  assert(!w.ctx->is_context(boost::fibers::type::main_context));
  w.waiting = true;
  w.woken = false;
  w.timer = seq_++;
  heap_.push_back({now_ms_ + ms, w.timer, w.ctx, &w});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  w.ctx->suspend();
  assert(!w.waiting);
  return w.woken;
}

void VirtualClock::wake(Wakeup& w) {
  if (!w.waiting) return;
  w.waiting = false;
  w.woken = true;
  if (cancelled_.size() <= w.timer) cancelled_.resize(w.timer + 1, false);
  cancelled_[w.timer] = true;
  ++cancelled_in_heap_;
  // A push's timeout is cancelled by its response and would sit in the heap
  // until its time came: thousands of dead timers deepen every push and pop.
  // Dropped once they are half the heap (amortized O(1) a cancel). Timers
  // are totally ordered by (at_ms, seq), so the heap's layout changes and the
  // firing order does not.
  if (cancelled_in_heap_ >= kCompactAtLeast && 2 * cancelled_in_heap_ > heap_.size()) {
    std::erase_if(heap_, [&](const Timer& t) { return cancelled(t.seq); });
    std::make_heap(heap_.begin(), heap_.end(), Later{});
    cancelled_in_heap_ = 0;
    ++compactions_;
  }
  boost::fibers::context::active()->schedule(w.ctx);
}

bool VirtualClock::fire_next() {
  // Drop cancelled timers at the top: they neither wake anyone nor move time.
  while (!heap_.empty() && cancelled(heap_.front().seq)) {
    --cancelled_in_heap_;
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    heap_.pop_back();
  }
  if (heap_.empty()) return false;
  const int64_t at_ms = heap_.front().at_ms;
  assert(at_ms >= now_ms_ && "time never goes backwards");
  now_ms_ = at_ms;
  // Ready every live timer due at this instant at once, so the seeded
  // scheduler (not registration order) decides who runs first. They are
  // readied in seq order, so the ready list, and with it each pick, is a
  // function of the seed alone.
  boost::fibers::context* self = boost::fibers::context::active();
  size_t fired = 0;
  while (!heap_.empty() && heap_.front().at_ms == at_ms) {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const Timer timer = heap_.back();
    heap_.pop_back();
    if (cancelled(timer.seq)) {
      --cancelled_in_heap_;
      continue;
    }
    if (timer.wakeup != nullptr) {
      assert(timer.wakeup->waiting);
      timer.wakeup->waiting = false;
    }
    self->schedule(timer.ctx);
    ++fired;
  }
  assert(fired >= 1 && "the earliest timer was live");
  return true;
}

}  // namespace qdt::sim
