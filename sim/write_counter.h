#pragma once
// What the recorder counts of a push transaction's writes (SPEC 5
// nothing-written-on-duplicate), counted by SQLite itself: temporary
// triggers on one connection add every row that connection's statements
// insert, update or delete in the segments and sidecar tables to a counter
// in a temporary table. The counter commits and rolls back with the
// transaction, so it moves exactly when a transaction committed a write to
// those tables. The recorder reads it under the write lock before the push
// and after it ended: O(1), where counting the rows read every one of them
// (a per-push cost that grew with the database).
//
// The triggers are the testbed's instrument at the seam, installed on every
// connection the world opens (World::open_storage), outside impl: impl's
// statements run unchanged and never read the counter.
#include <cstdint>
#include <memory>

#include <string>

#include "impl/sqlite.h"
#include "impl/storage.h"
#include "properties/history.h"

namespace qdt::sim {

struct WrittenRows {
  int64_t segments = 0;      // segment rows inserted, updated or deleted and committed
  int64_t sidecar_rows = 0;  // sidecar rows likewise
};

// Installs the counter and its triggers on `storage`'s connection unless it
// has them (cheap when it does: pooled connections keep theirs). Call while
// no transaction is open on the connection.
void install_write_counter(impl::Storage& storage);

// Reads one connection's counter; prepared on the first read.
class WriteCounter {
 public:
  explicit WriteCounter(impl::Storage& storage) : storage_(storage) {}
  WrittenRows read();
  // The recorder's whole fingerprint in one statement: the partition's
  // last_offset and txns_start (-1 and 0 when it does not exist, as
  // Storage::partition_state says) beside the counter. Two reads per push
  // instead of four: each is a statement as dear as the push's own.
  history::PartitionFingerprint fingerprint(const std::string& queue, const std::string& partition);

 private:
  impl::Storage& storage_;
  std::unique_ptr<impl::Statement> read_;
  std::unique_ptr<impl::Statement> fingerprint_;
};

}  // namespace qdt::sim
