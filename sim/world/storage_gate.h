#pragma once
// The world's side of one storage connection's StatementGate (impl/
// connection.h): every SQL statement becomes a round trip with seeded virtual
// latency, during which any other fiber may run (docs/semantics.md §2.4, "Concurrency");
// SQLITE_BUSY is waited out in virtual time until some transaction ends;
// armed faults (sim/faults/storage_faults.h) fail the statement they aim at; and a
// crash of the owning broker is noticed at the next statement.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "impl/broker/ports.h"
#include "impl/storage/sqlite/connection.h"
#include "properties/history.h"
#include "sim/base/rng.h"
#include "sim/base/trace.h"
#include "sim/faults/storage_faults.h"
#include "sim/schedule/virtual_clock.h"
#include "sim/world/world_config.h"

namespace qdt::sim {

// What every connection of one world shares.
struct StorageSide {
  VirtualClock& clock;
  history::History& history;
  Trace& trace;
  Rng& rng;  // latencies
  const StorageConfig& config;
  FaultPlan faults;
  std::vector<VirtualClock::Wakeup*> busy_waiters;  // connections waiting for a lock to be released
  uint64_t statements = 0;
  uint64_t busy_waits = 0;
  uint64_t faults_injected = 0;
  // The owner (ConnectionGate::owner) of the connection holding the write
  // lock, -1 when none: who waited for whom, for the reachability points.
  int64_t lock_holder = -1;
  // Storage power losses so far (crash_storage): a transaction begun before
  // the last one fails at its next statement.
  uint64_t power_epoch = 0;
  int64_t now_ms() const { return kEpochUnixMs + clock.now_ms(); }
  // One leg of a round trip: seeded latency; other fibers run meanwhile.
  void one_way() { clock.sleep_for(rng.between(config.latency_ms_min, config.latency_ms_max)); }
  void wake_busy_waiters();
};

// Thrown into a broker's in-flight work when the broker crashed while its
// storage round trip was out: the work is lost, before or after the commit.
// It is not a StorageError: the broker does not answer `error`, it answers
// nothing at all.
class BrokerCrashed : public impl::BrokerLost {
 public:
  using impl::BrokerLost::BrokerLost;
};

class ConnectionGate : public impl::StatementGate {
 public:
  // A busy wait ends when some transaction ends, or after this long (then the
  // statement is retried anyway); at most kBusyAttemptsMax waits per statement.
  static constexpr int64_t kBusyWaitMs = 1000;
  static constexpr uint32_t kBusyAttemptsMax = 600;

  // `owner` names the connection in the trace (a broker index, or kAdmin /
  // kRetention); `epoch` counts the owning broker's crashes (null: never crashes).
  static constexpr uint32_t kAdmin = 0xffffffffu;
  static constexpr uint32_t kRetention = 0xfffffffeu;
  ConnectionGate(StorageSide& side, uint32_t owner, const uint64_t* epoch) : side_(side), owner_(owner), epoch_(epoch) {}

  // Starts one storage call; `on_locked` runs (without suspending) when the
  // call's write transaction takes the lock.
  void begin_call(std::function<void()> on_locked = {});
  // Throws BrokerCrashed when the owner crashed since begin_call().
  void survive(const char* when);

  bool locked_in_call() const { return locked_in_call_; }
  const history::FaultRecord& fault() const { return fault_; }
  uint32_t busy_waits() const { return busy_waits_; }
  // Whether a lock wait of this call outlasted kBusyAttemptsMax waits (the
  // call then failed): a wait that would never have ended.
  bool wait_abandoned() const { return wait_abandoned_; }
  uint32_t owner() const { return owner_; }
  std::string name() const;

  int before_statement(impl::TxnKind txn, int64_t index, impl::StatementKind kind) override;
  bool wait_busy(impl::TxnKind txn, uint32_t attempt) override;
  bool wait_turn(impl::TxnKind txn, uint32_t attempt) override;
  // PostgreSQL: an armed fault is done to the backend (storage_faults.h).
  int before_server_statement(impl::TxnKind txn, int64_t index, impl::StatementKind kind,
                              impl::ServerBackend& backend) override;
  bool wait_busy_on_server(impl::TxnKind txn, uint32_t attempt, impl::ServerBackend& backend) override;
  void on_locked(impl::TxnKind txn) override;
  void on_ended(impl::TxnKind txn, bool committed) override;

 private:
  uint64_t epoch() const { return epoch_ ? *epoch_ : 0; }
  // The statement's latency, the crash and power checks, and whether the
  // armed fault hits statement `index` now.
  int travel(int64_t index, impl::StatementKind kind);
  bool fault_due(impl::TxnKind txn, int64_t index, impl::StatementKind kind);
  // Records a fault that hit statement `index`: history, reach points, trace.
  void record_fault(impl::TxnKind txn, int64_t index, impl::StatementKind kind, int code, const char* pg_action);
  StorageSide& side_;
  uint32_t owner_;
  const uint64_t* epoch_;
  uint64_t call_epoch_ = 0;
  uint64_t call_power_epoch_ = 0;
  std::function<void()> on_locked_;
  bool locked_in_call_ = false;
  bool armed_ = false;
  ArmedFault armed_fault_;
  // PostgreSQL `cancel`: statement cancel_index_ is running; cancelled if it
  // waits for a lock, else the backend ends before the next statement.
  bool cancel_pending_ = false;
  int64_t cancel_index_ = 0;
  impl::StatementKind cancel_kind_ = impl::StatementKind::write;
  history::FaultRecord fault_;
  uint32_t busy_waits_ = 0;
  bool wait_abandoned_ = false;
  // The schedule search's region (sim/schedule/scheduler.h) of this connection's
  // current transaction: a step that starts at one of its statements and
  // ends at the next touches only storage. Renewed whenever a call or a
  // transaction starts or ends, so a step that leaves storage code in
  // between ends under another region and counts as unknown.
  uint64_t region_ = 0;
  void label_storage_step();
  // Waits until some transaction ends or the busy interval passes; false
  // once attempt exceeds the budget (the caller gives up).
  bool wait_until_a_transaction_ends(uint32_t attempt);
};

}  // namespace qdt::sim
