#pragma once
// In-memory databases and their connections kept open from one world to the
// next in a process. Opening a connection makes SQLite parse the schema, and
// the first use of each statement prepares it: for a short campaign seed
// that costs as much as its pushes. A world takes
// a whole database (a slot), emptied of rows (impl::Storage::clear_rows: a
// fresh database's answers), and its connections go back to the slot when the
// world closes them; worlds alive at the same time never share a slot.
//
// Why results cannot depend on the reuse: no SQL answer of qdt's schema
// depends on where rows sit in pages (every multi-row read has an ORDER BY or
// reads a WITHOUT ROWID table in key order), the emptied tables hand out the
// same INTEGER PRIMARY KEYs as new ones, and a connection carries no state
// between transactions but its prepared statements. A pooled connection
// reaches the world's clock and gate through forwarders rebound at every
// lease. A connection left inside a transaction is closed, not pooled; a slot
// whose clearing fails is dropped. Tests: storage_pool_test.cpp, and the
// same-seed-same-trace tests (runner_test.cpp, ctest determinism.*) run
// seeds after others.
//
// Only memory worlds use it; file worlds (power loss) open their own files.
// One process, one thread: campaign workers are processes.
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "impl/storage/engine.h"
#include "impl/storage/sqlite/connection.h"
#include "impl/storage/sqlite/storage.h"
#include "sim/world/write_counter.h"

namespace qdt::sim {

// Gives a connection back to its slot (or closes it when it is not pooled).
// The handle is engine-neutral: a pooled connection is always SQLite's, an
// unpooled one either engine's.
struct StorageReturn {
  class Slot* slot = nullptr;
  size_t entry = 0;
  // Another keeper's (sim/world/pg_process.h), when not null and not a slot's.
  void (*give_back)(impl::StorageEngine* storage) = nullptr;
  void operator()(impl::StorageEngine* storage) const;
};
using StorageHandle = std::unique_ptr<impl::StorageEngine, StorageReturn>;

// A connection opened without the pool, closed when its handle dies.
StorageHandle unpooled(std::unique_ptr<impl::StorageEngine> storage);

// The write counter (sim/world/write_counter.h) kept with a pooled connection,
// made by the first call (outside a transaction: World::open_storage) and
// kept for every world that leases it; null for an unpooled connection (its
// owner keeps its own).
WriteCounter* pooled_counter(const StorageHandle& handle);

class Slot {
 public:
  explicit Slot(std::string uri) : uri_(std::move(uri)) {}
  const std::string& uri() const { return uri_; }
  // A connection with `options`, its statements crossing `gate` and reading
  // `clock`: an idle pooled one rebound, or a new one.
  StorageHandle open(const impl::StorageOptions& options, impl::StorageClock& clock, impl::StatementGate* gate);
  // Back from a handle: pooled again unless it is inside a transaction.
  void give_back(size_t entry);
  // Empties the database through the slot's cleaning connection, while no
  // connection is leased. false when it failed: the slot must not be used again.
  bool clear();
  size_t idle() const;
  WriteCounter& counter(size_t entry);

 private:
  struct ForwardingClock : impl::StorageClock {
    impl::StorageClock* target = nullptr;
    int64_t now_ms() override {
      assert(target != nullptr && "a pooled connection read the clock outside a lease");
      return target->now_ms();
    }
  };
  struct ForwardingGate : impl::StatementGate {
    impl::StatementGate* target = nullptr;
    int before_statement(impl::TxnKind txn, int64_t index, impl::StatementKind kind) override;
    bool wait_busy(impl::TxnKind txn, uint32_t attempt) override;
    void on_locked(impl::TxnKind txn) override;
    void on_ended(impl::TxnKind txn, bool committed) override;
  };
  struct Entry {
    ForwardingClock clock;
    ForwardingGate gate;
    impl::StorageOptions options;
    std::unique_ptr<impl::Storage> storage;
    // Counts `storage`'s writes; after it, so destroyed first (its hooks
    // and statement go before the connection closes), and reset whenever
    // `storage` is (close()).
    std::unique_ptr<WriteCounter> counter;
    bool leased = false;
    void close() {
      counter.reset();
      storage.reset();
    }
  };
  std::string uri_;
  std::vector<std::unique_ptr<Entry>> entries_;  // stable addresses: the forwarders are the connections' own
  // Empties the database: a connection of its own, never leased, so it has
  // none of the write counter's hooks (sim/world/write_counter.h): a pre-update
  // hook makes SQLite delete row by row where a DELETE without WHERE truncates.
  impl::ManualClock cleaner_clock_;
  std::unique_ptr<impl::Storage> cleaner_;
};

class StoragePool {
 public:
  // The process's pool.
  static StoragePool& process();
  // A slot no live world holds, emptied; release() hands it back.
  Slot& acquire();
  void release(Slot& slot);

 private:
  struct Held {
    std::unique_ptr<Slot> slot;
    bool in_use = false;
  };
  std::vector<Held> slots_;
  int64_t pid_ = -1;  // the process the slots were opened in
};

}  // namespace qdt::sim
