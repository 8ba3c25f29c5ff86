#pragma once
// The deterministic world: producers -> network -> brokers -> storage, all as
// fibers under the seeded scheduler, all time virtual. One root generator per
// run; sub-seeds are drawn in a fixed order (scheduler, network, storage,
// producers, then each broker) before anything runs. Under a `choices`
// schedule or the schedule search, network and producer draws are keyed by
// push instead (sim/world/network.h), from roots derived from the seed by name.
//
// Use: construct, then run(script). The script runs in a director fiber and
// may spawn more fibers (parallel steps); run() returns when it finishes. The
// thread's main fiber is the event loop that advances virtual time.
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/pooled_fixedsize_stack.hpp>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "impl/broker/broker.h"
#include "impl/storage/engine.h"
#include "impl/storage/sqlite/storage.h"
#include "properties/history.h"
#include "properties/recovered_view.h"
#include "sim/base/doomed_folders.h"
#include "sim/base/rng.h"
#include "sim/base/trace.h"
#include "sim/faults/storage_faults.h"
#include "sim/schedule/scheduler.h"
#include "sim/schedule/virtual_clock.h"
#include "sim/world/network.h"
#include "sim/world/producer.h"
#include "sim/world/storage_link.h"
#include "sim/world/world_config.h"

namespace qdt::impl::postgres {
class PgRun;
}  // namespace qdt::impl::postgres

namespace qdt::sim {

class World {
 public:
  World(const WorldConfig& config, bool keep_trace_text);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Runs `script` to completion in virtual time. Rethrows the first exception
  // any fiber threw; throws std::runtime_error on a deadlock (every fiber
  // waits and no timer is set).
  void run(const std::function<void()>& script);

  // From inside run(): a new fiber, scheduled by the seeded scheduler. With
  // a region, its first step is labelled `first` (SeededScheduler::label_first_step).
  boost::fibers::fiber spawn(std::function<void()> fn, uint64_t region = 0, const Footprint& first = {});
  // A fiber nobody joins (a network delivery); run() drains them before it returns.
  void spawn_detached(std::function<void()> fn, uint64_t region = 0, const Footprint& first = {});

  // One producer push: the request, its retries under `policy`, and the
  // outcome. `response` is the last response the producer received (nullopt:
  // every attempt timed out).
  struct PushOutcome {
    std::optional<impl::PushResponse> response;
    uint32_t attempts = 0;
  };
  //
  // A send (an attempt, from its start or its backoff to its wait) touches
  // only its producer (send_footprint): the push id is a name, the draws are
  // the attempt's own (sim/world/network.h). `send_region`: non-zero when the
  // caller's step began at a label with that region and calls push at once
  // (a parallel step's push child, spawned with its first step labelled
  // send_footprint): the first send ends that step.
  PushOutcome push(const std::string& step, uint32_t broker, const std::string& producer,
                   nlohmann::json items, const RetryPolicy& policy = {}, uint64_t send_region = 0);
  Footprint send_footprint(const std::string& producer) const;

  // Faults that change the world from now on.
  void set_network(const NetworkConfig& network) { config_.network = network; }
  void set_skew(uint32_t broker, int64_t skew_ms);
  // The broker loses everything in flight and restarts at once: work whose
  // storage round trip is out is dropped before or after its commit.
  void crash_broker(uint32_t broker);
  // File storage loses power (sim/faults/power_vfs.h): transactions in flight fail,
  // unsynced writes are dropped (`torn`: the last one keeps a seeded
  // prefix), every connection is reopened so SQLite recovers from its hot
  // journal; the recovered state and PRAGMA integrity_check are recorded
  // (history::StorageCrash). Memory storage: std::logic_error (the loader
  // refuses such a scenario).
  void crash_storage(bool torn);
  void evict_cache(uint32_t broker, const std::optional<std::string>& queue, const std::optional<std::string>& partition);
  void set_cache_enabled(uint32_t broker, bool enabled);  // the kill switch

  // The script's own connection (configure, ack, read, delete_segment) and
  // the retention loop's; each broker has its own (docs/semantics.md §2.4).
  StorageLink& admin();
  StorageLink& retention();
  void sleep_ms(int64_t ms) { clock_.sleep_for(ms); }
  void fail_storage(const StorageFault& fault) { side_->faults.add(fault); }
  // After run(): records what the black-box checkers read (a final read of
  // every partition) and which connections still hold a transaction.
  void finish_history();

  const WorldConfig& config() const { return config_; }
  // Read-only inspection (metrics, expectations): the admin's connection.
  impl::StorageEngine& storage();
  const StorageSide& storage_side() const { return *side_; }
  history::History& history() { return history_; }
  Trace& trace() { return trace_; }
  VirtualClock& clock() { return clock_; }
  const impl::Broker& broker(uint32_t i) const { return *brokers_.at(i); }
  uint32_t broker_count() const { return static_cast<uint32_t>(brokers_.size()); }
  uint64_t scheduler_picks() const { return scheduler_picks_; }
  // A policy that run() uses instead of the one world.schedule names (the
  // schedule search's; it outlives the run). Set before run().
  void set_schedule_policy(SchedulePolicy* policy) { external_policy_ = policy; }
  // After run(): how the schedule went (mode, and for pct the depth, the
  // steps, the fibers seen and the bound; for choices an error if a choice
  // named a fiber that was not ready). Null for random.
  const nlohmann::json& schedule_report() const { return schedule_report_; }
  const NetworkStats& network_stats() const { return network_.stats(); }

 private:
  struct BrokerSeams;
  Producer& producer(const std::string& name);
  StorageHandle open_storage(impl::StatementGate* gate, const impl::StorageOptions& options);
  // PostgreSQL storage (world_postgres.cpp): the run and its inspector, a
  // client's link, and the recorder's fingerprint read by the inspector.
  void begin_pg_run();
  std::unique_ptr<StorageLink> connect_pg(uint32_t owner, const uint64_t* epoch, bool checked_mode,
                                          size_t connections);
  history::PartitionFingerprint pg_fingerprint(const std::string& queue, const std::string& partition);
  std::unique_ptr<StorageLink> connect(uint32_t owner, const uint64_t* epoch, bool checked_mode, size_t connections);
  std::function<void()> guarded(std::function<void()> fn);

  WorldConfig config_;
  Rng root_;
  Rng scheduler_rng_;
  Rng network_rng_;
  Rng storage_rng_;
  Rng producer_rng_;
  Rng power_rng_;  // torn pages; forked last, so older sub-seeds do not move
  uint64_t producers_seed_ = 0;  // keyed draws: each producer's seed is derived from it and its name
  VirtualClock clock_;
  boost::fibers::pooled_fixedsize_stack stacks_;
  history::History history_;
  properties::RecoveredView recovered_;  // what the latest crash_storage recovered, to record the next as changes
  Trace trace_;
  std::unique_ptr<StorageSide> side_;
  // File-backed storage: this run's own folder, removed after every
  // connection closed (declared before the clients, so destroyed after them).
  struct TempDir {
    std::string path;
    std::unique_ptr<DoomedFolder> doomed;  // removed on a fatal signal too
    ~TempDir();
  } temp_dir_;
  // Memory storage: a database of the process's pool (sim/world/storage_pool.h),
  // released after every connection went back to it (declared before the
  // clients, so destroyed after them).
  struct PoolLease {
    Slot* slot = nullptr;
    ~PoolLease();
  } pool_lease_;
  std::string storage_uri_;
  std::unique_ptr<impl::StorageClock> storage_clock_;
  // PostgreSQL storage: the process's run (sim/world/pg_process.h), and the
  // recorder's inspector session, declared before the clients, so given
  // back after them.
  impl::postgres::PgRun* pg_run_ = nullptr;
  StorageHandle pg_inspector_;
  // A session of the run, kept by the process between worlds.
  StorageHandle lease_pg(const std::string& name, impl::StatementGate* gate, bool checked_mode);
  std::unique_ptr<StorageLink> admin_;
  std::unique_ptr<StorageLink> retention_;
  std::vector<std::unique_ptr<BrokerSeams>> seams_;
  std::vector<std::unique_ptr<impl::Broker>> brokers_;
  Network network_;
  std::map<std::string, Producer> producers_;
  uint64_t next_push_ = 0;
  uint64_t live_detached_ = 0;
  uint64_t scheduler_picks_ = 0;
  SchedulePolicy* external_policy_ = nullptr;
  nlohmann::json schedule_report_;
  std::exception_ptr fiber_error_;
};

}  // namespace qdt::sim
