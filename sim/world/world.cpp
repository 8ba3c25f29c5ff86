// One file past 400 lines: the world's set-up, its clients and its faults
// share the members they touch (world_push.cpp and world_schedule.cpp hold the rest).
#include "sim/world/world.h"

#include <unistd.h>

#include <atomic>
#include <boost/fiber/operations.hpp>
#include <boost/fiber/pooled_fixedsize_stack.hpp>
#include <cassert>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "impl/reached.h"
#include "sim/faults/power_vfs.h"
#include "sim/world/cache_module_choice.h"
#include "sim/world/world_schedule.h"
#include "sim/world/write_counter.h"

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

// Storage's clock is the world's clock (docs/semantics.md §2.4: read under the lock).
class SimStorageClock : public impl::StorageClock {
 public:
  explicit SimStorageClock(const VirtualClock& clock) : clock_(clock) {}
  int64_t now_ms() override { return kEpochUnixMs + clock_.now_ms(); }

 private:
  const VirtualClock& clock_;
};

// A file path as the path of an SQLite URI: "?" and "#" would end it and "%"
// would be decoded, so each is percent-encoded (the folder comes from TMPDIR).
std::string uri_path(const std::string& path) {
  std::string out;
  for (const char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += '%';
      out += kHex[static_cast<unsigned char>(c) >> 4];
      out += kHex[static_cast<unsigned char>(c) & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

// A name no other live world of this process uses: worlds never share rows.
std::string unique_database_name() {
  static std::atomic<uint64_t> next{0};
  return "qdt-" + std::to_string(::getpid()) + "-" + std::to_string(next.fetch_add(1));
}

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
  const Network* network = nullptr;  // its draws, for the footprint of an answered waiter's step
  void wait(impl::FiberEvent& event) override {
    while (!event.set) {
      boost::fibers::context* self = boost::fibers::context::active();
      assert(!self->is_context(boost::fibers::type::main_context));
      event.waiter = self;
      waiting_.push_back(&event);
      self->suspend();
      std::erase(waiting_, &event);
      if (stalled_) {
        event.waiter = nullptr;
        throw impl::BrokerLost("the run stalled with this request waiting in a fusion lane");
      }
    }
    event.set = false;
    event.waiter = nullptr;
  }
  size_t waiters() const { return waiting_.size(); }
  // Every fiber waits and no timer is pending: wakes this port's waiters,
  // each to end its request as lost (World::run records the stall).
  void break_stall() {
    stalled_ = true;
    for (impl::FiberEvent* event : std::vector<impl::FiberEvent*>(waiting_)) notify(*event, Wake::answered);
  }
  void notify(impl::FiberEvent& event, Wake why) override {
    event.set = true;
    if (auto* waiter = static_cast<boost::fibers::context*>(event.waiter)) {
      event.waiter = nullptr;
      // An answered request only collects its answer until its response
      // leg (Network::kAnswerRegion); one handed a lane flushes it: unknown.
      if (why == Wake::answered && network != nullptr) {
        // Its back latency is its own draw when keyed, the shared generator's when ordered.
        SeededScheduler::label_waiting_fiber(
            waiter, Network::kAnswerRegion,
            network->keyed_draws() ? Footprint::of(std::initializer_list<uint64_t>{})
                                   : Footprint::of({resource::ordered_draws}));
      }
      boost::fibers::context::active()->schedule(waiter);
    }
  }

 private:
  std::vector<impl::FiberEvent*> waiting_;
  bool stalled_ = false;
};

}  // namespace

// Connections per client: a broker serves concurrent requests (and brokers
// contend with each other and with retention), the admin runs parallel script
// steps; the retention loop is one fiber per pass.
constexpr size_t kBrokerConnections = 2;
constexpr size_t kAdminConnections = 2;
constexpr size_t kRetentionConnections = 1;

struct World::BrokerSeams {
  SimBrokerClock clock;
  SimRandom random;
  std::unique_ptr<uint64_t> epoch;  // crashes so far; the gate watches it
  std::unique_ptr<StorageLink> link;
  FiberWaitPort waits;
};

StorageLink& World::admin() { return *admin_; }
StorageLink& World::retention() { return *retention_; }
impl::StorageEngine& World::storage() { return admin_->storage(); }

World::TempDir::~TempDir() {
  if (path.empty()) return;
  power_vfs::forget(path);
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

namespace {
std::string pragma_synchronous(const StorageConfig& storage) {
  if (storage.path == ":memory:") return "";
  if (storage.synchronous == "off") return "OFF";
  if (storage.synchronous == "normal") return "NORMAL";
  assert(storage.synchronous == "full");
  return "FULL";
}
}  // namespace

StorageHandle World::open_storage(impl::StatementGate* gate, const impl::StorageOptions& options) {
  // The recorder's instrument (sim/world/write_counter.h), while no lock is held:
  // a pooled connection's counter is made here once and kept in its slot;
  // an unpooled connection is prepared here, and its counter is made by its
  // first fingerprint (under the lock, before the push writes anything).
  if (pool_lease_.slot != nullptr) {
    StorageHandle storage = pool_lease_.slot->open(options, *storage_clock_, gate);
    pooled_counter(storage);
    return storage;
  }
  auto storage = std::make_unique<impl::Storage>(storage_uri_, *storage_clock_, gate, options);
  install_write_counter(*storage);
  return unpooled(std::move(storage));
}

World::PoolLease::~PoolLease() {
  if (slot != nullptr) StoragePool::process().release(*slot);
}

std::unique_ptr<StorageLink> World::connect(uint32_t owner, const uint64_t* epoch, bool checked_mode,
                                            size_t connections) {
  if (pg_run_) return connect_pg(owner, epoch, checked_mode, connections);
  impl::StorageOptions options;
  options.synchronous = pragma_synchronous(config_.storage);
  options.purge_batch = config_.storage.purge_batch;
  options.checked_mode = checked_mode;
  options.variant = config_.variant;
  if (config_.storage.path == ":memory:") options.page_size_bytes = kMemoryPageBytes;
  return std::make_unique<StorageLink>(
      *side_, owner, epoch,
      [this, options](impl::StatementGate* gate) { return open_storage(gate, options); },  // by value: restart() opens again later
      connections, /*notices_restart=*/epoch != nullptr);
}

World::World(const WorldConfig& config, bool keep_trace_text)
    : config_(config),
      root_(config.seed),
      scheduler_rng_(root_.fork()),
      network_rng_(root_.fork()),
      storage_rng_(root_.fork()),
      producer_rng_(root_.fork()),
      stacks_(kFiberStackBytes),
      trace_(keep_trace_text),
      network_(config_.network, network_rng_, Rng::derive(config.seed, Rng::key_of("network", 7)), clock_, trace_,
               history_,
               [this](std::function<void()> fn, uint64_t region, const Footprint& first) {
                 spawn_detached(std::move(fn), region, first);
               }) {
  // Keyed draws' roots come from the seed by name, not from the root
  // generator: ordered draws (and their traces) stay exactly as they were.
  producers_seed_ = Rng::derive(config.seed, Rng::key_of("producers", 9));
  assert(config.brokers >= 1 && config.brokers <= kMaxBrokers);
  side_ = std::make_unique<StorageSide>(StorageSide{clock_, history_, trace_, storage_rng_, config_.storage, {}, {}});
  storage_clock_ = std::make_unique<SimStorageClock>(clock_);
  // One database, a connection per client (docs/semantics.md §2.4). Every run starts from
  // an empty one: in memory, a database of the process's pool emptied of
  // rows (its connections stay open between runs), or a file in a fresh folder.
  if (config.storage.engine == StorageEngineKind::postgres) {
    // The loader and the command line refuse file storage on PostgreSQL.
    assert(config.storage.path == ":memory:");
    begin_pg_run();
  } else if (config.storage.path == ":memory:") {
    pool_lease_.slot = &StoragePool::process().acquire();
    storage_uri_ = pool_lease_.slot->uri();
  } else {
    const std::string name = unique_database_name();
    std::string pattern = (std::filesystem::temp_directory_path() / (name + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a folder for " + config.storage.path);
    temp_dir_.path = pattern;
    temp_dir_.doomed = std::make_unique<DoomedFolder>(std::filesystem::absolute(pattern).string());
    const std::string file = std::filesystem::path(config.storage.path).filename().string();
    // Through the disk that can lose power (crash_storage).
    storage_uri_ = "file:" + uri_path((std::filesystem::path(pattern) / (file.empty() ? "qdt.db" : file)).string()) +
                   "?vfs=" + power_vfs::install();
  }
  admin_ = connect(ConnectionGate::kAdmin, nullptr, false, kAdminConnections);
  retention_ = connect(ConnectionGate::kRetention, nullptr, false, kRetentionConnections);
  for (uint32_t b = 0; b < config.brokers; ++b) {
    auto epoch = std::make_unique<uint64_t>(0);
    const uint64_t* watched = epoch.get();
    seams_.push_back(std::unique_ptr<BrokerSeams>(new BrokerSeams{
        SimBrokerClock(clock_), SimRandom(root_.fork()), std::move(epoch), connect(b, watched, config.checked_mode, kBrokerConnections), {}}));
    brokers_.push_back(std::make_unique<impl::Broker>(b, seams_.back()->clock, seams_.back()->random,
                                                      *seams_.back()->link, &seams_.back()->waits));
    seams_.back()->waits.network = &network_;
    brokers_.back()->set_variant(config.variant);
    brokers_.back()->set_fusion(config.fusion);
    brokers_.back()->set_bundles(config.bundles);
    brokers_.back()->configure_cache(
        {config.cache.enabled, config.cache.budget_bytes, config.cache.decline_cooldown_flushes});
    if (const CacheModule* module = chosen_cache_module()) {
      // The interface counts its budget in whole MiB (DedupCache::new(max_mb, ..)).
      constexpr int64_t kMiB = int64_t{1} << 20;
      const uint64_t max_mb = static_cast<uint64_t>(std::max<int64_t>(1, (config.cache.budget_bytes + kMiB - 1) / kMiB));
      brokers_.back()->use_foreign_cache(module->library->make(max_mb, config.cache.enabled), module->caller,
                                         config.cache.enabled);
    }
  }
  power_rng_ = Rng(root_.fork());
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
      .field("storage", config.storage.path == ":memory:" ? "memory" : "file")
      .field("interleave", config.storage.interleave ? 1 : 0)
      .field("variant", impl::variant_name(config.variant));
  // Only file storage has a setting here (memory traces keep their hashes).
  if (config.storage.path != ":memory:") trace_.field("synchronous", config.storage.synchronous);
  // Only PostgreSQL worlds name their engine (SQLite traces keep their hashes).
  if (config.storage.engine == StorageEngineKind::postgres) trace_.field("engine", "postgres");
  if (config.bundles) trace_.field("bundles", 1);
  // Only worlds with a foreign cache name it (built-in traces keep their hashes).
  if (const CacheModule* module = chosen_cache_module()) {
    trace_.field("cache_module", module->content_hash).field("cache_caller", impl::cache_caller_name(module->caller));
  }
  trace_.end();
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

boost::fibers::fiber World::spawn(std::function<void()> fn, uint64_t region, const Footprint& first) {
  boost::fibers::fiber f(std::allocator_arg, stacks_, guarded(std::move(fn)));
  if (region != 0) SeededScheduler::label_first_step(f, region, first);
  return f;
}

void World::spawn_detached(std::function<void()> fn, uint64_t region, const Footprint& first) {
  ++live_detached_;
  boost::fibers::fiber f(std::allocator_arg, stacks_,
                         [this, body = guarded(std::move(fn))] {
                           body();
                           --live_detached_;
                           // A rest-of-fiber label (a response's last leg) ends here.
                           SeededScheduler::label_fiber_exit();
                         });
  if (region != 0) SeededScheduler::label_first_step(f, region, first);
  f.detach();
}

void World::evict_cache(uint32_t broker, const std::optional<std::string>& queue,
                        const std::optional<std::string>& partition) {
  assert(broker < brokers_.size());
  brokers_[broker]->evict_cache(queue, partition);
  trace_.begin(clock_.now_ms(), "evict-cache").field("b", broker).field("q", queue.value_or("*"))
      .field("p", partition.value_or("*")).end();
}

void World::set_cache_enabled(uint32_t broker, bool enabled) {
  assert(broker < brokers_.size());
  brokers_[broker]->set_cache_enabled(enabled);
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
  brokers_[broker]->crash();  // a restarted broker starts cold: cache, windows and lanes gone
  trace_.begin(clock_.now_ms(), "crash").field("b", broker).end();
}

void World::crash_storage(bool torn) {
  if (temp_dir_.path.empty()) throw std::logic_error("crash_storage needs file storage (world.storage.path)");
  history::StorageCrash crash;
  crash.event_index = history_.events.size();
  crash.at_ms = side_->now_ms();
  crash.synchronous = config_.storage.synchronous;
  // Every transaction begun before now fails at its next statement.
  ++side_->power_epoch;
  if (side_->lock_holder >= 0) QDT_REACHED("power.lost_with_the_write_lock_held");
  side_->lock_holder = -1;
  const power_vfs::LossReport loss = power_vfs::power_loss(temp_dir_.path, power_rng_, torn);
  crash.bytes_dropped = loss.bytes_dropped;
  crash.files_vanished = loss.files_vanished;
  crash.torn_bytes_kept = loss.torn_bytes_kept;
  // Nothing holds a lock now: the first connection recovers from the hot
  // journal. An instrument, not a client: ungated, no virtual time passes.
  // Read whole (lost pages may be anywhere) but kept as what changed since
  // the previous crash, so that a run keeps each message about once.
  std::vector<history::FinalRead> reads;
  try {
    impl::StorageOptions options;
    options.synchronous = pragma_synchronous(config_.storage);
    impl::Storage inspector(storage_uri_, *storage_clock_, nullptr, options);
    crash.integrity = inspector.integrity_check();
    for (const auto& [queue, partition] : inspector.inspect_partitions()) {
      history::FinalRead read{queue, partition, {}};
      for (const auto& m : inspector.inspect_messages(queue, partition)) {
        read.messages.push_back({m.offset, impl::to_string(m.message_id), m.transaction_id});
      }
      reads.push_back(std::move(read));
    }
  } catch (const impl::StorageError& e) {
    crash.integrity = std::string("recovery failed: ") + e.what();
  }
  crash.recovered = recovered_.advance_to(reads);
  trace_.begin(clock_.now_ms(), "crash-storage")
      .field("torn", torn ? 1 : 0)
      .field("dropped_bytes", static_cast<int64_t>(loss.bytes_dropped))
      .field("vanished", static_cast<int64_t>(loss.files_vanished))
      .field("torn_kept", static_cast<int64_t>(loss.torn_bytes_kept))
      .field("integrity", crash.integrity)
      .end();
  history_.storage_crashes.push_back(std::move(crash));
  admin_->restart();
  retention_->restart();
  for (auto& seams : seams_) seams->link->restart();
}

void World::run(const std::function<void()>& script) {
  SeededScheduler& scheduler = SeededScheduler::install();
  assert(scheduler.ready_workers() == 0);
  scheduler.set_rng(&scheduler_rng_);
  // A written-down schedule and the search that writes them draw keyed
  // (sim/world/network.h): their steps commute; every other schedule draws in
  // pick order, as its traces always have.
  network_.set_keyed_draws(external_policy_ != nullptr || config_.schedule.mode == ScheduleMode::choices);
  const WorldSchedule schedule(config_.schedule, scheduler_rng_, external_policy_);
  scheduler.set_policy(schedule.policy());
  schedule.record(trace_, clock_.now_ms());
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
      // Requests waiting inside a broker for a wake nobody will send: a
      // liveness failure of the implementation, recorded, and broken so the
      // run ends and its history is judged. Anything else is the world's own.
      bool broken = false;
      for (uint32_t b = 0; b < seams_.size(); ++b) {
        FiberWaitPort& port = seams_[b]->waits;
        if (port.waiters() == 0) continue;
        history_.stalls.push_back({clock_.now_ms(), b, static_cast<uint32_t>(port.waiters())});
        trace_.begin(clock_.now_ms(), "stall").field("b", b).field("waiters", static_cast<int64_t>(port.waiters())).end();
        port.break_stall();
        broken = true;
      }
      if (broken) continue;
      deadlock = true;
      break;
    }
  }
  if (deadlock) {
    scheduler.set_policy(nullptr);  // this run's policy dies with it
    // Fibers still wait on each other: they cannot be unwound safely, so this
    // is fatal for the process rather than a recoverable error.
    throw std::logic_error("deadlock: every fiber waits and no virtual timer is pending");
  }
  director.join();
  scheduler_picks_ += scheduler.picks() - picks_before;
  scheduler.set_policy(nullptr);
  scheduler.set_rng(nullptr);
  schedule_report_ = schedule.report();
  if (fiber_error_) std::rethrow_exception(std::exchange(fiber_error_, nullptr));
}

void World::finish_history() {
  admin_->open_transactions(history_.open_transactions_at_end);
  retention_->open_transactions(history_.open_transactions_at_end);
  for (auto& seams : seams_) seams->link->open_transactions(history_.open_transactions_at_end);
  // A transaction left open holds its lock: nothing could read past it.
  if (!history_.open_transactions_at_end.empty()) return;
  for (const auto& [queue, partition] : admin_->storage().inspect_partitions()) {
    history::FinalRead read{queue, partition, {}};
    std::vector<impl::StoredMessage> stored = admin_->storage().inspect_messages(queue, partition);
    read.messages.reserve(stored.size());
    for (impl::StoredMessage& m : stored) {
      read.messages.push_back({m.offset, impl::to_string(m.message_id), std::move(m.transaction_id)});
    }
    history_.final_reads.push_back(std::move(read));
  }
  history_.recorded_final_reads = true;
}

}  // namespace qdt::sim
