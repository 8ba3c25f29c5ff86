#include "sim/virtual_clock.h"

#include <algorithm>
#include <cassert>

namespace qdt::sim {

void VirtualClock::sleep_for(int64_t ms) {
  assert(ms >= 0);
  boost::fibers::context* self = boost::fibers::context::active();
  assert(!self->is_context(boost::fibers::type::main_context) && "the event loop never sleeps");
  heap_.push_back({now_ms_ + ms, seq_++, self});
  std::push_heap(heap_.begin(), heap_.end(), later);
  self->suspend();
}

bool VirtualClock::fire_next() {
  if (heap_.empty()) return false;
  std::pop_heap(heap_.begin(), heap_.end(), later);
  const Timer timer = heap_.back();
  heap_.pop_back();
  assert(timer.at_ms >= now_ms_ && "time never goes backwards");
  now_ms_ = timer.at_ms;
  boost::fibers::context::active()->schedule(timer.ctx);
  return true;
}

}  // namespace qdt::sim
