#include "impl/reached.h"

#include <utility>

namespace qdt::impl {
namespace {
thread_local ReachObserver* observer = nullptr;
}

ReachObserver* set_reach_observer(ReachObserver* next) noexcept { return std::exchange(observer, next); }

void mark_reached(std::string_view point) noexcept {
  if (observer != nullptr) observer->reached(point);
}

}  // namespace qdt::impl
