#include "sim/scheduler.h"

#include <boost/fiber/operations.hpp>
#include <cassert>

namespace qdt::sim {
namespace {
thread_local SeededScheduler* installed = nullptr;
}

SeededScheduler::SeededScheduler() {
  ready_.reserve(1024);
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

void SeededScheduler::awakened(boost::fibers::context* ctx) noexcept {
  if (ctx->is_context(boost::fibers::type::main_context)) {
    main_ = ctx;
  } else if (ctx->is_context(boost::fibers::type::dispatcher_context)) {
    dispatcher_ = ctx;
  } else {
    ready_.push_back(ctx);
  }
}

boost::fibers::context* SeededScheduler::pick_next() noexcept {
  if (!ready_.empty()) {
    Rng& rng = rng_ ? *rng_ : fallback_;
    const size_t i = ready_.size() == 1 ? 0 : static_cast<size_t>(rng.below(ready_.size()));
    boost::fibers::context* ctx = ready_[i];
    ready_[i] = ready_.back();
    ready_.pop_back();
    ++picks_;
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
