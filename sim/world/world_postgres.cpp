// The world's storage on PostgreSQL (docs/semantics.md §9): one run of the
// process's backend per world, a named session per storage connection, and
// an inspector session for the recorder.
#include <memory>
#include <string>

#include "impl/storage/postgres/pg_storage.h"
#include "sim/world/pg_process.h"
#include "sim/world/world.h"

namespace qdt::sim {

void World::begin_pg_run() {
  pg_run_ = &begin_pg_world(config_.variant);
  // Ungated: an instrument, not a client; its reads take no lock (docs/semantics.md §9.2).
  pg_inspector_ = lease_pg("inspector", nullptr, false);
}

StorageHandle World::lease_pg(const std::string& name, impl::StatementGate* gate, bool checked_mode) {
  impl::postgres::PgStorageOptions options;
  options.purge_batch = config_.storage.purge_batch;
  options.checked_mode = checked_mode;
  options.variant = config_.variant;
  StorageReturn back;
  back.give_back = give_back_pg_session;
  return StorageHandle(lease_pg_session(name, *storage_clock_, gate, options), back);
}

std::unique_ptr<StorageLink> World::connect_pg(uint32_t owner, const uint64_t* epoch, bool checked_mode,
                                               size_t connections) {
  // Sessions are named by their client (docs/semantics.md §9.2): the run settles
  // them in name order, so the names are fixed by the world's shape alone.
  const std::string client = owner == ConnectionGate::kAdmin       ? "admin"
                             : owner == ConnectionGate::kRetention ? "retention"
                                                                   : "b" + std::to_string(owner);
  auto opened = std::make_shared<size_t>(0);
  return std::make_unique<StorageLink>(
      *side_, owner, epoch,
      [this, client, opened, checked_mode](impl::StatementGate* gate) {
        return lease_pg(client + "-" + std::to_string((*opened)++), gate, checked_mode);
      },
      connections, /*notices_restart=*/epoch != nullptr,
      [this](const std::string& queue, const std::string& partition) { return pg_fingerprint(queue, partition); });
}

// Read on the inspector's own session: under the push's row lock it sees the
// partition as committed before the push (READ COMMITTED hides the push's own
// writes), and right after the commit it sees them (docs/semantics.md §5
// nothing-written-on-duplicate). Row counts stand in for SQLite's write
// counter: a write that changes no count (an UPDATE in place, or an insert
// and a delete of as many rows) is invisible to them.
history::PartitionFingerprint World::pg_fingerprint(const std::string& queue, const std::string& partition) {
  const impl::PartitionRows rows = pg_inspector_->partition_rows(queue, partition);
  return {rows.last_offset, rows.txns_start, rows.segments, rows.sidecar_rows};
}

}  // namespace qdt::sim
