#include "sim/virtual_clock.h"

#include <algorithm>
#include <cassert>

namespace qdt::sim {

void VirtualClock::sleep_for(int64_t ms) {
  assert(ms >= 0);
  boost::fibers::context* self = boost::fibers::context::active();
  assert(!self->is_context(boost::fibers::type::main_context) && "the event loop never sleeps");
  heap_.push_back({now_ms_ + ms, seq_++, self, nullptr});
  std::push_heap(heap_.begin(), heap_.end(), later);
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
  std::push_heap(heap_.begin(), heap_.end(), later);
  w.ctx->suspend();
  assert(!w.waiting);
  return w.woken;
}

void VirtualClock::wake(Wakeup& w) {
  if (!w.waiting) return;
  w.waiting = false;
  w.woken = true;
  cancelled_.insert(w.timer);
  boost::fibers::context::active()->schedule(w.ctx);
}

bool VirtualClock::fire_next() {
  Timer timer;
  for (;;) {
    if (heap_.empty()) return false;
    std::pop_heap(heap_.begin(), heap_.end(), later);
    timer = heap_.back();
    heap_.pop_back();
    // A cancelled timer neither wakes anyone nor moves time.
    if (cancelled_.erase(timer.seq) == 0) break;
  }
  if (timer.wakeup != nullptr) {
    assert(timer.wakeup->waiting);
    timer.wakeup->waiting = false;
  }
  assert(timer.at_ms >= now_ms_ && "time never goes backwards");
  now_ms_ = timer.at_ms;
  boost::fibers::context::active()->schedule(timer.ctx);
  return true;
}

}  // namespace qdt::sim
