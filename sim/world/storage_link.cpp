#include "sim/world/storage_link.h"

#include <cassert>
#include <nlohmann/json.hpp>

#include "sim/world/storage_call.h"
#include "sim/world/storage_recorder.h"

namespace qdt::sim {

StorageLink::StorageLink(StorageSide& side, uint32_t owner, const uint64_t* epoch, const Open& open,
                         size_t connections, bool notices_restart, Inspect inspect)
    : side_(side),
      open_(open),
      inspect_(std::move(inspect)),
      notices_restart_(notices_restart),
      observed_power_epoch_(side.power_epoch) {
  assert(connections >= 1);
  for (size_t i = 0; i < connections; ++i) {
    auto conn = std::unique_ptr<Conn>(new Conn{ConnectionGate(side, owner, epoch), nullptr, false, nullptr, nullptr});
    conn->storage = open(&conn->gate);
    conns_.push_back(std::move(conn));
  }
}

void StorageLink::open_transactions(std::vector<std::string>& out) const {
  for (size_t i = 0; i < conns_.size(); ++i) {
    if (conns_[i]->storage->in_transaction()) out.push_back(conns_[i]->gate.name() + " connection " + std::to_string(i));
  }
}

StorageLink::Conn& StorageLink::acquire() {
  for (uint32_t waits = 0;; ++waits) {
    for (auto& conn : conns_) {
      if (!conn->busy) {
        conn->busy = true;
        return *conn;
      }
    }
    // Bounded: a connection never returned is a liveness failure, not a hang.
    if (waits >= kLeaseWaitsMax) throw std::logic_error("no storage connection came free");
    VirtualClock::Wakeup w;
    waiters_.push_back(&w);
    if (!side_.clock.wait_for(kLeaseWaitMs, w)) std::erase(waiters_, &w);
  }
}

void StorageLink::restart() {
  for (auto& conn : conns_) {
    if (conn->busy) {
      // Opened now, while no connection holds a lock, and swapped in when
      // the failing call lets go of the old one.
      conn->replacement = open_(&conn->gate);
    } else {
      conn->written.reset();
      conn->storage.reset();  // its files are dead: closing writes nothing
      conn->storage = open_(&conn->gate);
    }
  }
  if (!notices_restart_) observed_power_epoch_ = side_.power_epoch;
}

bool StorageLink::refuses_call() {
  if (observed_power_epoch_ == side_.power_epoch) return false;
  observed_power_epoch_ = side_.power_epoch;
  side_.trace.begin(side_.clock.now_ms(), "storage-lost").field("c", conns_.front()->gate.name()).end();
  return true;
}

uint64_t StorageLink::enter() {
  if (refuses_call()) throw refused();
  return observed_power_epoch_;
}

void StorageLink::leave(uint64_t entered) {
  if (!lost_since(entered)) return;
  observed_power_epoch_ = side_.power_epoch;
  side_.trace.begin(side_.clock.now_ms(), "storage-lost").field("c", conns_.front()->gate.name()).end();
  throw impl::StorageError::connection_lost("storage connection lost during the call: storage lost power");
}

history::PartitionFingerprint StorageLink::Lease::fingerprint(When when, const std::string& queue,
                                                              const std::string& partition) {
  if (link_.inspect_) return link_.inspect_(queue, partition);
  WriteCounter* counter = pooled_counter(conn_.storage);
  if (counter == nullptr) {
    // A link without an inspector is SQLite's: its connections are impl::Storage.
    if (!conn_.written) conn_.written = std::make_unique<WriteCounter>(static_cast<impl::Storage&>(*conn_.storage));
    counter = conn_.written.get();
  }
  return when == When::before ? counter->fingerprint(queue, partition) : counter->fingerprint_after(queue, partition);
}

StorageLink::Lease::~Lease() {
  if (conn_.replacement) {
    conn_.written.reset();
    conn_.storage = std::move(conn_.replacement);
  }
  conn_.busy = false;
  if (!link_.waiters_.empty()) {
    VirtualClock::Wakeup* next = link_.waiters_.front();
    link_.waiters_.erase(link_.waiters_.begin());
    link_.side_.clock.wake(*next);
  }
}

void StorageLink::request_leg(ConnectionGate& gate, const char* when) {
  // With statement-level interleaving every statement is its own round trip.
  if (!side_.config.interleave) side_.one_way();
  gate.survive(when);
}

void StorageLink::response_leg(ConnectionGate& gate, const char* when) {
  side_.one_way();
  gate.survive(when);
}

impl::PushResult StorageLink::push(const impl::SegmentPush& segment) {
  if (refuses_call()) {
    // A failed transaction, as an injected fault records one: the producer's
    // `error` for these keys has an event the checkers can find.
    record_refused_push(side_, owner(), segment);
    throw refused();
  }
  const uint64_t entered = side_.power_epoch;
  Lease lease(*this, acquire());
  ConnectionGate& gate = lease.gate();
  impl::StorageEngine& storage = lease.storage();
  // The fingerprints are taken on this connection while it holds the write
  // lock (before: a reading) and right after the transaction ended (after:
  // that reading moved by what SQLite's hooks saw this connection commit,
  // sim/world/write_counter.h): nothing else can commit in between, so they show
  // what this transaction wrote.
  history::PartitionFingerprint before;
  gate.begin_call([&] { before = lease.fingerprint(Lease::When::before, segment.queue, segment.partition); });
  request_leg(gate, "before-commit");
  impl::PushResult result;
  const std::optional<impl::StorageError> failure = attempt([&] { result = storage.push(segment); });
  // A call that never held the lock (it failed before, or a variant answered
  // from a read transaction) wrote nothing through this connection; another
  // connection may hold the lock now, so read nothing more: what the read
  // snapshot saw is the state at this point of the commit order (no commit
  // can land while a SQLite read transaction is open, nor since it ended).
  // PostgreSQL lets commits land under a read snapshot, so its inspector
  // reads the state at this point instead.
  if (!gate.locked_in_call() && !failure) {
    if (inspect_) {
      before = inspect_(segment.queue, segment.partition);
    } else {
      before.last_offset = result.last_offset_before;
    }
  }
  // A connection that lost power can read nothing more: a transaction that
  // held the lock then has no after-inspection (rows_after_read false).
  // Asked again after the read: power lost while it ran makes it worthless.
  history::PartitionFingerprint after = before;
  bool after_read = true;
  if (gate.locked_in_call()) {
    if (!lost_since(entered)) after = lease.fingerprint(Lease::When::after, segment.queue, segment.partition);
    after_read = failure.has_value() || !lost_since(entered);
    if (!after_read) after = before;
  }
  record_push(side_, gate, segment, failure ? nullptr : &result, before, after, after_read);
  if (failure) record_lock_failure(side_, gate, "push", "", segment.queue, segment.partition, last_event(side_), *failure);
  response_leg(gate, "after-commit");
  leave(entered);
  if (failure) throw *failure;
  return result;
}

std::optional<impl::CoveringSegment> StorageLink::covering_segment(const std::string& queue,
                                                                   const std::string& partition, int64_t offset) {
  if (refuses_call()) {
    // A failed read, as an injected fault records one: the id degrades to zero.
    record_fetch(side_, owner(), queue, partition, offset, nullptr);
    throw refused();
  }
  const uint64_t entered = side_.power_epoch;
  Lease lease(*this, acquire());
  ConnectionGate& gate = lease.gate();
  impl::StorageEngine& storage = lease.storage();
  gate.begin_call();
  request_leg(gate, "before-fetch");
  std::optional<impl::CoveringSegment> segment;
  const std::optional<impl::StorageError> failure = attempt([&] { segment = storage.covering_segment(queue, partition, offset); });
  const size_t event = record_fetch(side_, owner(), queue, partition, offset, failure ? nullptr : &segment);
  if (failure) record_lock_failure(side_, gate, "fetch", "", queue, partition, static_cast<int64_t>(event), *failure);
  response_leg(gate, "after-fetch");
  // The answer died with the connection: the broker reads nothing, as if the
  // read had failed (leave() throws below).
  if (lost_since(entered)) fail_fetch(side_, event);
  leave(entered);
  if (failure) throw *failure;
  return segment;
}

impl::SidecarRead StorageLink::sidecar_rows(const std::string& queue, const std::string& partition,
                                           int64_t after_offset, int64_t since_ms) {
  const uint64_t entered = enter();
  Lease lease(*this, acquire());
  ConnectionGate& gate = lease.gate();
  impl::StorageEngine& storage = lease.storage();
  // Hydration is a storage round trip like any other: other fibers run meanwhile.
  gate.begin_call();
  request_leg(gate, "before-hydrate");
  impl::SidecarRead read;
  const std::optional<impl::StorageError> failure = attempt([&] { read = storage.read_sidecar(queue, partition, after_offset, since_ms); });
  Trace& t = side_.trace.begin(side_.clock.now_ms(), "hydrate")
                 .field("b", gate.owner())
                 .field("q", queue)
                 .field("p", partition)
                 .field("after", after_offset);
  if (failure) {
    t.raw("-> failed");
  } else {
    t.field("rows", static_cast<int64_t>(read.rows.size())).field("last", read.last_offset);
  }
  t.end();
  if (failure) record_lock_failure(side_, gate, "hydrate", "", queue, partition, -1, *failure);
  response_leg(gate, "after-hydrate");
  leave(entered);
  if (failure) throw *failure;
  return read;
}

std::vector<std::pair<std::string, std::string>> StorageLink::partitions(const std::optional<std::string>& queue) {
  const uint64_t entered = enter();
  Lease lease(*this, acquire());
  ConnectionGate& gate = lease.gate();
  impl::StorageEngine& storage = lease.storage();
  gate.begin_call();
  request_leg(gate, "before-list");
  auto out = storage.partitions(queue);
  response_leg(gate, "after-list");
  leave(entered);
  return out;
}

impl::RetentionDelete StorageLink::delete_expired_segments(const std::string& queue, const std::string& partition) {
  const uint64_t entered = enter();
  Lease lease(*this, acquire());
  ConnectionGate& gate = lease.gate();
  impl::StorageEngine& storage = lease.storage();
  gate.begin_call();
  request_leg(gate, "before-retention");
  impl::RetentionDelete result;
  const std::optional<impl::StorageError> failure = attempt([&] { result = storage.delete_expired_segments(queue, partition); });
  record_retention(side_, gate, queue, partition, failure ? nullptr : &result);
  if (failure) record_lock_failure(side_, gate, "retention", "", queue, partition, last_event(side_), *failure);
  response_leg(gate, "after-retention");
  leave(entered);
  if (failure) throw *failure;
  return result;
}

impl::PurgeStep StorageLink::purge_step(const std::string& queue, const std::string& partition) {
  const uint64_t entered = enter();
  Lease lease(*this, acquire());
  ConnectionGate& gate = lease.gate();
  impl::StorageEngine& storage = lease.storage();
  gate.begin_call();
  request_leg(gate, "before-purge");
  impl::PurgeStep step;
  const std::optional<impl::StorageError> failure = attempt([&] { step = storage.purge_step(queue, partition); });
  record_purge(side_, gate, queue, partition, side_.config.purge_batch, failure ? nullptr : &step);
  if (failure) record_lock_failure(side_, gate, "purge", "", queue, partition, last_event(side_), *failure);
  response_leg(gate, "after-purge");
  leave(entered);
  if (failure) throw *failure;
  return step;
}

impl::QueueOptions StorageLink::configure(const std::string& queue, const nlohmann::json& options) {
  const uint64_t entered = enter();
  Lease lease(*this, acquire());
  ConnectionGate& gate = lease.gate();
  impl::StorageEngine& storage = lease.storage();
  gate.begin_call();
  request_leg(gate, "before-configure");
  impl::QueueOptions next;
  const std::optional<impl::StorageError> failure = attempt([&] { next = storage.configure(queue, options); });
  // Only a change that committed reaches the history (and so the model).
  if (!failure) {
    side_.history.events.emplace_back(history::ConfigureEvent{queue, side_.now_ms(), next.dedup_window_seconds,
                                                              next.retention_seconds,
                                                              next.completed_retention_seconds});
  }
  Trace& t = side_.trace.begin(side_.clock.now_ms(), "configure").field("q", queue);
  if (failure) {
    t.raw("-> failed");
  } else {
    t.field("window", next.dedup_window_seconds)
        .field("retention", next.retention_seconds)
        .field("completed", next.completed_retention_seconds);
  }
  t.end();
  if (failure) record_lock_failure(side_, gate, "configure", "", queue, "", -1, *failure);
  response_leg(gate, "after-configure");
  leave(entered);
  if (failure) throw *failure;
  return next;
}

impl::AckResult StorageLink::ack(const std::string& step, const std::string& queue, const std::string& partition,
                                 const std::string& transaction_id, const std::string& consumer_group) {
  const uint64_t entered = enter();
  Lease lease(*this, acquire());
  ConnectionGate& gate = lease.gate();
  impl::StorageEngine& storage = lease.storage();
  gate.begin_call();
  request_leg(gate, "before-ack");
  impl::AckResult result;
  const std::optional<impl::StorageError> failure = attempt([&] { result = storage.ack(queue, partition, transaction_id, consumer_group); });
  record_ack(side_, gate, step, queue, partition, transaction_id, consumer_group, failure ? nullptr : &result);
  if (failure) record_lock_failure(side_, gate, "ack", step, queue, partition, last_event(side_), *failure);
  response_leg(gate, "after-ack");
  leave(entered);
  if (failure) throw *failure;
  return result;
}

std::vector<impl::StoredMessage> StorageLink::read(const std::string& step, const std::string& queue,
                                                   const std::string& partition, int64_t from, int64_t limit) {
  const uint64_t entered = enter();
  Lease lease(*this, acquire());
  ConnectionGate& gate = lease.gate();
  impl::StorageEngine& storage = lease.storage();
  gate.begin_call();
  request_leg(gate, "before-read");
  std::vector<impl::StoredMessage> messages;
  const std::optional<impl::StorageError> failure = attempt([&] { messages = storage.read(queue, partition, from, limit); });
  record_read(side_, step, queue, partition, from, limit, failure ? nullptr : &messages);
  if (failure) record_lock_failure(side_, gate, "read", step, queue, partition, last_event(side_), *failure);
  response_leg(gate, "after-read");
  leave(entered);
  if (failure) throw *failure;
  return messages;
}

std::optional<impl::SegmentSpan> StorageLink::delete_segment(const std::string& queue, const std::string& partition,
                                                             int64_t offset) {
  const uint64_t entered = enter();
  Lease lease(*this, acquire());
  ConnectionGate& gate = lease.gate();
  impl::StorageEngine& storage = lease.storage();
  gate.begin_call();
  request_leg(gate, "before-delete");
  std::optional<impl::SegmentSpan> span;
  const std::optional<impl::StorageError> failure = attempt([&] { span = storage.delete_segment(queue, partition, offset); });
  // Only a deletion that committed reaches the history (and so the model).
  if (span) {
    side_.history.events.emplace_back(
        history::DeleteSegmentEvent{queue, partition, side_.now_ms(), span->base_offset, span->end_offset, true});
  }
  Trace& t = side_.trace.begin(side_.clock.now_ms(), "delete-segment").field("q", queue).field("p", partition).field("o", offset);
  if (failure) {
    t.raw("-> failed");
  } else {
    t.field("deleted", span ? 1 : 0);
  }
  t.end();
  if (failure) record_lock_failure(side_, gate, "delete-segment", "", queue, partition, -1, *failure);
  response_leg(gate, "after-delete");
  leave(entered);
  if (failure) throw *failure;
  return span;
}

}  // namespace qdt::sim
