#include "sim/world/storage_pool.h"

#include <cassert>
#include <unistd.h>

namespace qdt::sim {
namespace {

// Options chosen once per connection (policies bound at construction);
// purge_batch is set again at every lease.
bool same_policies(const impl::StorageOptions& a, const impl::StorageOptions& b) {
  return a.checked_mode == b.checked_mode && a.variant == b.variant && a.synchronous == b.synchronous;
}

}  // namespace

void StorageReturn::operator()(impl::StorageEngine* storage) const {
  if (give_back != nullptr) {
    give_back(storage);
    return;
  }
  if (slot == nullptr) {
    delete storage;
    return;
  }
  slot->give_back(entry);
}

StorageHandle unpooled(std::unique_ptr<impl::StorageEngine> storage) { return StorageHandle(storage.release(), {}); }

WriteCounter* pooled_counter(const StorageHandle& handle) {
  const StorageReturn& back = handle.get_deleter();
  return back.slot == nullptr ? nullptr : &back.slot->counter(back.entry);
}

WriteCounter& Slot::counter(size_t entry) {
  assert(entry < entries_.size() && entries_[entry]->leased && entries_[entry]->storage);
  Entry& e = *entries_[entry];
  if (!e.counter) {
    install_write_counter(*e.storage);  // once per connection, outside a transaction
    e.counter = std::make_unique<WriteCounter>(*e.storage);
  }
  return *e.counter;
}

int Slot::ForwardingGate::before_statement(impl::TxnKind txn, int64_t index, impl::StatementKind kind) {
  return target ? target->before_statement(txn, index, kind) : StatementGate::before_statement(txn, index, kind);
}
bool Slot::ForwardingGate::wait_busy(impl::TxnKind txn, uint32_t attempt) {
  return target ? target->wait_busy(txn, attempt) : StatementGate::wait_busy(txn, attempt);
}
void Slot::ForwardingGate::on_locked(impl::TxnKind txn) {
  if (target) target->on_locked(txn);
}
void Slot::ForwardingGate::on_ended(impl::TxnKind txn, bool committed) {
  if (target) target->on_ended(txn, committed);
}

StorageHandle Slot::open(const impl::StorageOptions& options, impl::StorageClock& clock, impl::StatementGate* gate) {
  // An idle connection with the same policies; else the place of an idle one
  // with others (closed: entries never outnumber the connections one world
  // holds at once) or of a closed one; else a new place.
  size_t chosen = entries_.size(), spare = entries_.size();
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = *entries_[i];
    if (e.leased) continue;
    if (e.storage && same_policies(e.options, options)) {
      chosen = i;
      break;
    }
    if (spare == entries_.size() || !e.storage) spare = i;
  }
  if (chosen == entries_.size()) {
    if (spare == entries_.size()) entries_.push_back(std::make_unique<Entry>());
    chosen = spare;
    Entry& fresh = *entries_[chosen];
    fresh.close();
    fresh.options = options;
    fresh.storage = std::make_unique<impl::Storage>(uri_, fresh.clock, &fresh.gate, options);
  }
  Entry& e = *entries_[chosen];
  e.storage->set_purge_batch(options.purge_batch);
  e.options.purge_batch = options.purge_batch;
  e.clock.target = &clock;
  e.gate.target = gate;
  e.leased = true;
  return StorageHandle(e.storage.get(), StorageReturn{this, chosen});
}

void Slot::give_back(size_t entry) {
  assert(entry < entries_.size() && entries_[entry]->leased);
  Entry& e = *entries_[entry];
  e.leased = false;
  e.clock.target = nullptr;
  e.gate.target = nullptr;
  // Inside a transaction (a world stopped mid-call): rolling back by closing
  // is what a lost client does; it is not handed to the next world.
  if (e.storage->in_transaction()) e.close();
}

bool Slot::clear() {
  // An in-memory database lives while a connection to it is open: with none
  // (not even the cleaner's) there is nothing to empty.
  bool open = cleaner_ != nullptr;
  for (auto& e : entries_) {
    if (e->leased) return false;
    open = open || e->storage != nullptr;
  }
  if (!open) return true;
  try {
    if (!cleaner_) cleaner_ = std::make_unique<impl::Storage>(uri_, cleaner_clock_);
    cleaner_->clear_rows();
  } catch (const impl::StorageError&) {
    return false;
  }
  return true;
}

size_t Slot::idle() const {
  size_t n = 0;
  for (const auto& e : entries_) n += (!e->leased && e->storage) ? 1 : 0;
  return n;
}

StoragePool& StoragePool::process() {
  static StoragePool pool;
  return pool;
}

Slot& StoragePool::acquire() {
  // A forked worker (sim/base/fork_pool.h) does not use its parent's connections:
  // SQLite connections must not cross fork(). They are left open, untouched,
  // in the child (closing them could touch what the parent still owns).
  if (pid_ != ::getpid()) {
    for (Held& h : slots_) static_cast<void>(h.slot.release());
    slots_.clear();
    pid_ = ::getpid();
  }
  for (Held& h : slots_) {
    if (h.in_use || !h.slot) continue;
    if (!h.slot->clear()) {
      // Its connections close with it; a new database replaces it below.
      h.slot.reset();
      continue;
    }
    h.in_use = true;
    return *h.slot;
  }
  std::erase_if(slots_, [](const Held& h) { return !h.slot; });
  // A name no other slot of this process uses, whichever pool holds it:
  // slots never share rows.
  static uint64_t next_name = 0;
  const std::string name = "qdt-pool-" + std::to_string(::getpid()) + "-" + std::to_string(next_name++);
  slots_.push_back({std::make_unique<Slot>(impl::Storage::shared_memory_uri(name)), true});
  return *slots_.back().slot;
}

void StoragePool::release(Slot& slot) {
  for (Held& h : slots_) {
    if (h.slot.get() == &slot) {
      assert(h.in_use);
      h.in_use = false;
      return;
    }
  }
  assert(false && "released a slot the pool does not hold");
}

}  // namespace qdt::sim
