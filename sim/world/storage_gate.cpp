#include "sim/world/storage_gate.h"

#include <algorithm>
#include <array>
#include <cassert>

#include "impl/reached.h"
#include "sim/schedule/scheduler.h"

namespace qdt::sim {
namespace {

// Which statement of a push transaction a fault failed: every one must be
// seen to fail (reachability points, sim/scenario/reach_points.h).
void mark_push_fault(int64_t index, impl::StatementKind kind) {
  static constexpr std::array<const char*, 7> kAt = {
      "fault.push_failed_at_statement_0", "fault.push_failed_at_statement_1", "fault.push_failed_at_statement_2",
      "fault.push_failed_at_statement_3", "fault.push_failed_at_statement_4", "fault.push_failed_at_statement_5",
      "fault.push_failed_at_statement_6"};
  if (kind == impl::StatementKind::commit) {
    QDT_REACHED("fault.push_failed_at_commit");
  } else if (index >= 0 && index < static_cast<int64_t>(kAt.size())) {
    QDT_REACHED(kAt[static_cast<size_t>(index)]);
  }
}

// Lock contention, by who waited for whom.
void mark_wait(uint32_t waiter, int64_t holder) {
  const bool waiter_broker = waiter != ConnectionGate::kAdmin && waiter != ConnectionGate::kRetention;
  if (holder < 0) return;
  const auto h = static_cast<uint32_t>(holder);
  const bool holder_broker = h != ConnectionGate::kAdmin && h != ConnectionGate::kRetention;
  if (waiter_broker && holder_broker) QDT_REACHED("lock.broker_waited_for_another_broker");
  if (waiter_broker && h == ConnectionGate::kRetention) QDT_REACHED("lock.broker_waited_for_retention");
  if (waiter == ConnectionGate::kRetention && holder_broker) QDT_REACHED("lock.retention_waited_for_broker");
  if (waiter_broker && h == ConnectionGate::kAdmin) QDT_REACHED("lock.broker_waited_for_admin");
}

}  // namespace

void StorageSide::wake_busy_waiters() {
  std::vector<VirtualClock::Wakeup*> waiters;
  waiters.swap(busy_waiters);
  for (VirtualClock::Wakeup* w : waiters) clock.wake(*w);
}

std::string ConnectionGate::name() const {
  if (owner_ == kAdmin) return "admin";
  if (owner_ == kRetention) return "retention";
  return "broker " + std::to_string(owner_);
}

void ConnectionGate::label_storage_step() {
  SeededScheduler::label_next_step(region_, Footprint::of({resource::storage}));
}

void ConnectionGate::begin_call(std::function<void()> on_locked) {
  region_ = SeededScheduler::new_region();
  call_epoch_ = epoch();
  call_power_epoch_ = side_.power_epoch;
  on_locked_ = std::move(on_locked);
  locked_in_call_ = false;
  armed_ = false;
  cancel_pending_ = false;
  fault_ = {};
  busy_waits_ = 0;
  wait_abandoned_ = false;
}

void ConnectionGate::survive(const char* when) {
  if (epoch() == call_epoch_) return;
  side_.trace.begin(side_.clock.now_ms(), "crash-lost").field("b", owner_).field("when", when).end();
  throw BrokerCrashed(std::string("broker crashed ") + when);
}

int ConnectionGate::travel(int64_t index, impl::StatementKind kind) {
  side_.statements++;
  if (side_.config.interleave) {
    if (kind == impl::StatementKind::begin) region_ = SeededScheduler::new_region();
    // The statement travels to storage: every other fiber may run meanwhile.
    label_storage_step();
    side_.one_way();
    survive(kind == impl::StatementKind::commit ? "before-commit" : "in-transaction");
  }
  if (side_.power_epoch != call_power_epoch_) {
    // Storage lost power while this statement travelled: the connection is
    // gone, and so is the transaction (SQLite's hot journal undoes it).
    armed_ = false;
    fault_ = {index, SQLITE_IOERR};
    return SQLITE_IOERR;
  }
  return SQLITE_OK;
}

bool ConnectionGate::fault_due(impl::TxnKind txn, int64_t index, impl::StatementKind kind) {
  if (kind == impl::StatementKind::begin) armed_ = side_.faults.arm(txn, armed_fault_);
  if (!armed_ || (index < armed_fault_.statement && kind != impl::StatementKind::commit)) return false;
  armed_ = false;
  return true;
}

void ConnectionGate::record_fault(impl::TxnKind txn, int64_t index, impl::StatementKind kind, int code,
                                  const char* pg_action) {
  fault_ = {index, code};
  side_.faults_injected++;
  if (txn == impl::TxnKind::push) mark_push_fault(index, kind);
  Trace& event = side_.trace.begin(side_.clock.now_ms(), "fault");
  event.field("c", name()).field("txn", impl::txn_kind_name(txn)).field("stmt", index).field("code", code);
  if (pg_action) event.field("pg", pg_action);
  event.end();
}

int ConnectionGate::before_statement(impl::TxnKind txn, int64_t index, impl::StatementKind kind) {
  if (const int code = travel(index, kind)) return code;
  if (!fault_due(txn, index, kind)) return SQLITE_OK;
  record_fault(txn, index, kind, armed_fault_.code, nullptr);
  return armed_fault_.code;
}

int ConnectionGate::before_server_statement(impl::TxnKind txn, int64_t index, impl::StatementKind kind,
                                            impl::ServerBackend& backend) {
  if (const int code = travel(index, kind)) return code;
  if (cancel_pending_) {
    // Statement cancel_index_ returned without waiting for a lock: its
    // backend ends now, idle inside the transaction.
    cancel_pending_ = false;
    backend.terminate();
    record_fault(txn, index, kind, SQLITE_IOERR, pg_fault_action_name(PgFaultAction::terminate));
    return SQLITE_OK;
  }
  if (!fault_due(txn, index, kind)) return SQLITE_OK;
  const bool may_wait = kind != impl::StatementKind::begin && kind != impl::StatementKind::commit;
  if (armed_fault_.pg == PgFaultAction::cancel && may_wait) {
    cancel_pending_ = true;
    cancel_index_ = index;
    cancel_kind_ = kind;
    return SQLITE_OK;
  }
  // The backend ends before the statement is sent: the statement finds the
  // connection closed, and the server rolled the transaction back.
  backend.terminate();
  record_fault(txn, index, kind, SQLITE_IOERR, pg_fault_action_name(PgFaultAction::terminate));
  return SQLITE_OK;
}

bool ConnectionGate::wait_busy_on_server(impl::TxnKind txn, uint32_t attempt, impl::ServerBackend& backend) {
  if (!cancel_pending_) return wait_busy(txn, attempt);
  cancel_pending_ = false;
  mark_wait(owner_, side_.lock_holder);
  backend.cancel_lock_wait();
  record_fault(txn, cancel_index_, cancel_kind_, SQLITE_BUSY, pg_fault_action_name(PgFaultAction::cancel));
  return true;  // the statement returned: cancelled
}

bool ConnectionGate::wait_busy(impl::TxnKind txn, uint32_t attempt) {
  if (attempt > kBusyAttemptsMax) return wait_until_a_transaction_ends(attempt);
  busy_waits_++;
  side_.busy_waits++;
  mark_wait(owner_, side_.lock_holder);
  return wait_until_a_transaction_ends(attempt);
}

// As wait_busy, without counting a lock wait or marking who waited for
// whom: the client asked for no lock yet.
bool ConnectionGate::wait_turn(impl::TxnKind txn, uint32_t attempt) {
  return wait_until_a_transaction_ends(attempt);
}

bool ConnectionGate::wait_until_a_transaction_ends(uint32_t attempt) {
  if (attempt > kBusyAttemptsMax) {
    wait_abandoned_ = true;
    return false;
  }
  VirtualClock::Wakeup w;
  side_.busy_waiters.push_back(&w);
  label_storage_step();
  const bool woken = side_.clock.wait_for(kBusyWaitMs, w);
  if (!woken) std::erase(side_.busy_waiters, &w);
  return true;
}

void ConnectionGate::on_locked(impl::TxnKind txn) {
  locked_in_call_ = true;
  side_.lock_holder = owner_;
  if (on_locked_) on_locked_();
}

void ConnectionGate::on_ended(impl::TxnKind txn, bool committed) {
  // A `cancel` whose statement neither waited nor was followed by another
  // (the transaction ended in between) injected nothing.
  cancel_pending_ = false;
  if (side_.lock_holder == static_cast<int64_t>(owner_)) side_.lock_holder = -1;
  region_ = SeededScheduler::new_region();
  side_.wake_busy_waiters();
}

}  // namespace qdt::sim
