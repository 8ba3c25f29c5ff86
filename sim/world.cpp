#include "sim/world.h"

#include <boost/fiber/operations.hpp>
#include <boost/fiber/pooled_fixedsize_stack.hpp>
#include <cassert>
#include <stdexcept>

namespace qdt::sim {
namespace {

// SQLite runs on fiber stacks: give them room. Stacks are pooled per world:
// a delivery fiber per request would otherwise map and unmap a stack each.
constexpr size_t kFiberStackBytes = 256 * 1024;

class SimBrokerClock : public impl::BrokerClock {
 public:
  explicit SimBrokerClock(const VirtualClock& clock) : clock_(clock) {}
  int64_t now_ms() override { return kEpochUnixMs + clock_.now_ms() + skew_ms; }
  int64_t skew_ms = 0;

 private:
  const VirtualClock& clock_;
};

class SimRandom : public impl::RandomSource {
 public:
  explicit SimRandom(uint64_t seed) : rng_(seed) {}
  uint64_t next_u64() override { return rng_.next(); }

 private:
  Rng rng_;
};

// Suspends a fiber on a broker-internal event; the event loop never waits here.
class FiberWaitPort : public impl::WaitPort {
 public:
  void wait(impl::FiberEvent& event) override {
    while (!event.set) {
      boost::fibers::context* self = boost::fibers::context::active();
      assert(!self->is_context(boost::fibers::type::main_context));
      event.waiter = self;
      self->suspend();
    }
    event.set = false;
    event.waiter = nullptr;
  }
  void notify(impl::FiberEvent& event) override {
    event.set = true;
    if (auto* waiter = static_cast<boost::fibers::context*>(event.waiter)) {
      event.waiter = nullptr;
      boost::fibers::context::active()->schedule(waiter);
    }
  }
};

}  // namespace

struct World::BrokerSeams {
  SimBrokerClock clock;
  SimRandom random;
  std::unique_ptr<uint64_t> epoch;  // crashes so far; the link watches it
  StorageLink link;
  FiberWaitPort waits;
};

World::World(const WorldConfig& config, bool keep_trace_text)
    : config_(config),
      root_(config.seed),
      scheduler_rng_(root_.fork()),
      network_rng_(root_.fork()),
      storage_rng_(root_.fork()),
      producer_rng_(root_.fork()),
      stacks_(kFiberStackBytes),
      storage_(config.storage.path, config.storage.purge_batch),
      trace_(keep_trace_text),
      network_(config_.network, network_rng_, clock_, trace_, history_,
               [this](std::function<void()> fn) { spawn_detached(std::move(fn)); }) {
  assert(config.brokers >= 1 && config.brokers <= kMaxBrokers);
  side_ = std::make_unique<StorageSide>(
      StorageSide{storage_, clock_, history_, trace_, storage_rng_, config_.storage, 0});
  admin_ = std::make_unique<StorageLink>(*side_, StorageLink::kAdmin);
  storage_.set_variant(config.variant);
  for (uint32_t b = 0; b < config.brokers; ++b) {
    auto epoch = std::make_unique<uint64_t>(0);
    const uint64_t* watched = epoch.get();
    seams_.push_back(std::unique_ptr<BrokerSeams>(new BrokerSeams{
        SimBrokerClock(clock_), SimRandom(root_.fork()), std::move(epoch), StorageLink(*side_, b, watched), {}}));
    brokers_.push_back(std::make_unique<impl::Broker>(b, seams_.back()->clock, seams_.back()->random,
                                                      seams_.back()->link, &seams_.back()->waits));
    brokers_.back()->set_variant(config.variant);
    brokers_.back()->set_fusion(config.fusion);
    brokers_.back()->configure_cache({config.cache.enabled, config.cache.budget_bytes});
  }
  trace_.begin(0, "world")
      .field("seed", static_cast<int64_t>(config.seed))
      .field("brokers", config.brokers)
      .field("fusion", config.fusion ? 1 : 0)
      .field("cache", config.cache.enabled ? config.cache.budget_bytes : -1)
      .field("latency", std::to_string(config.network.latency_ms_min) + ".." +
                            std::to_string(config.network.latency_ms_max))
      .field("storage_latency", std::to_string(config.storage.latency_ms_min) + ".." +
                                    std::to_string(config.storage.latency_ms_max))
      .field("purge_batch", config.storage.purge_batch)
      .field("variant", impl::variant_name(config.variant))
      .end();
}

World::~World() = default;

std::function<void()> World::guarded(std::function<void()> fn) {
  return [this, fn = std::move(fn)] {
    try {
      fn();
    } catch (...) {
      if (!fiber_error_) fiber_error_ = std::current_exception();
    }
  };
}

boost::fibers::fiber World::spawn(std::function<void()> fn) {
  return boost::fibers::fiber(std::allocator_arg, stacks_,
                              guarded(std::move(fn)));
}

void World::spawn_detached(std::function<void()> fn) {
  ++live_detached_;
  boost::fibers::fiber f(std::allocator_arg, stacks_,
                         [this, body = guarded(std::move(fn))] {
                           body();
                           --live_detached_;
                         });
  f.detach();
}

void World::evict_cache(uint32_t broker, const std::optional<std::string>& queue,
                        const std::optional<std::string>& partition) {
  assert(broker < brokers_.size());
  brokers_[broker]->cache().evict(queue, partition);
  trace_.begin(clock_.now_ms(), "evict-cache").field("b", broker).field("q", queue.value_or("*"))
      .field("p", partition.value_or("*")).end();
}

void World::set_cache_enabled(uint32_t broker, bool enabled) {
  assert(broker < brokers_.size());
  brokers_[broker]->cache().set_enabled(enabled);
  trace_.begin(clock_.now_ms(), "cache").field("b", broker).field("enabled", enabled ? 1 : 0).end();
}

void World::set_skew(uint32_t broker, int64_t skew_ms) {
  assert(broker < seams_.size());
  seams_[broker]->clock.skew_ms = skew_ms;
  trace_.begin(clock_.now_ms(), "skew").field("b", broker).field("ms", skew_ms).end();
}

void World::crash_broker(uint32_t broker) {
  assert(broker < seams_.size());
  ++*seams_[broker]->epoch;
  brokers_[broker]->cache().clear();  // a restarted broker starts cold
  trace_.begin(clock_.now_ms(), "crash").field("b", broker).end();
}

void World::run(const std::function<void()>& script) {
  SeededScheduler& scheduler = SeededScheduler::install();
  assert(scheduler.ready_workers() == 0);
  scheduler.set_rng(&scheduler_rng_);
  const uint64_t picks_before = scheduler.picks();
  bool done = false;
  auto body = guarded(script);
  boost::fibers::fiber director(std::allocator_arg, stacks_,
                                [&] {
                                  body();
                                  done = true;
                                });
  bool deadlock = false;
  // The script is done when its director returns and every in-flight
  // delivery has settled.
  while (!done || live_detached_ > 0) {
    boost::this_fiber::yield();  // returns when every simulated fiber waits
    if (done && live_detached_ == 0) break;
    if (!clock_.fire_next()) {
      deadlock = true;
      break;
    }
  }
  if (deadlock) {
    // Fibers still wait on each other: they cannot be unwound safely, so this
    // is fatal for the process rather than a recoverable error.
    throw std::logic_error("deadlock: every fiber waits and no virtual timer is pending");
  }
  director.join();
  scheduler_picks_ += scheduler.picks() - picks_before;
  scheduler.set_rng(nullptr);
  if (fiber_error_) std::rethrow_exception(std::exchange(fiber_error_, nullptr));
}

Producer& World::producer(const std::string& name) {
  auto it = producers_.find(name);
  if (it == producers_.end()) {
    // Producers get their sub-seed in order of first use, which is itself
    // determined by the seed.
    it = producers_.emplace(name, Producer(name, producer_rng_.fork())).first;
  }
  return it->second;
}

World::PushOutcome World::push(const std::string& step, uint32_t broker, const std::string& producer_name,
                               const nlohmann::json& items, const RetryPolicy& policy) {
  assert(broker < brokers_.size());
  assert(policy.attempts >= 1 && policy.timeout_ms >= 1);
  Producer& p = producer(producer_name);
  // Keys are set once: every retry resends the same items with the same transactionIds.
  auto request = std::make_shared<const nlohmann::json>(p.prepare(items));
  const uint64_t push_id = ++next_push_;
  PushOutcome outcome;
  for (uint32_t attempt = 0; attempt < policy.attempts; ++attempt) {
    if (attempt > 0) clock_.sleep_for(policy.backoff_ms);
    trace_.begin(clock_.now_ms(), "send")
        .field("push", static_cast<int64_t>(push_id))
        .field("attempt", attempt)
        .field("step", step)
        .field("producer", producer_name)
        .field("b", broker);
    if (attempt == 0) trace_.field("body", request->dump());
    trace_.end();
    auto state = std::make_shared<Attempt>();
    network_.send(*brokers_[broker], request, AttemptMeta{step, producer_name, push_id, attempt}, state);
    outcome.attempts = attempt + 1;
    if (!clock_.wait_for(policy.timeout_ms, state->wakeup)) {
      trace_.begin(clock_.now_ms(), "timeout").field("push", static_cast<int64_t>(push_id)).field("attempt", attempt).end();
      continue;
    }
    assert(state->response.has_value());
    outcome.response = std::move(state->response);
    // The SDK retries a timeout or a storage error; a verdict is final.
    bool failed = false;
    for (const auto& item : outcome.response->items) failed = failed || item.status == "error";
    if (!failed) break;
  }
  return outcome;
}

}  // namespace qdt::sim
