#pragma once
// What the recorder counts of a push transaction's writes (docs/semantics.md §5
// nothing-written-on-duplicate), counted by SQLite itself: the segment and
// sidecar rows one connection's committed transactions inserted, updated or
// deleted. The recorder reads the counter under the write lock before the
// push and after it ended: O(1), where counting the rows read every one of
// them (a per-push cost that grew with the database).
//
// How SQLite tells us (sim/world/write_counter.cpp): its pre-update hook reports
// every row change before it is made, tables WITHOUT ROWID included; its
// commit and rollback hooks say what became of the transaction; and a row
// changed by a statement that SQLite then undid alone (a constraint's ABORT
// inside a transaction that goes on) is told apart by the connection's
// change count, which such a statement leaves where it was. Earlier this
// was temporary triggers adding to a temporary table: as exact, but a sixth
// of every push's instructions (sub-programs, a second database's journal
// and commit); the hooks cost a function call per row.
//
// The instrument is the testbed's, at the seam, installed on every
// connection the world opens (World::open_storage), outside impl: impl's
// statements run unchanged and never see it.
#include <cstdint>
#include <memory>
#include <string>

#include "impl/storage/sqlite/sqlite.h"
#include "impl/storage/sqlite/storage.h"
#include "properties/history.h"

namespace qdt::sim {

struct WrittenRows {
  int64_t segments = 0;      // segment rows inserted, updated or deleted and committed
  int64_t sidecar_rows = 0;  // sidecar rows likewise
  WrittenRows& operator+=(const WrittenRows& o) {
    segments += o.segments;
    sidecar_rows += o.sidecar_rows;
    return *this;
  }
  bool operator==(const WrittenRows&) const = default;
};

// Prepares `storage`'s connection for a counter: temporary objects in memory
// (sorters never open a file through the power-loss VFS), and a check that
// the schema has no triggers, which the abort rule assumes (write_counter.cpp).
// Call while no transaction is open on the connection.
void install_write_counter(impl::Storage& storage);

// Counts one connection's committed writes from its construction on; the
// connection's hooks are its own while it lives (one counter per connection).
class WriteCounter {
 public:
  explicit WriteCounter(impl::Storage& storage);
  ~WriteCounter();
  WriteCounter(const WriteCounter&) = delete;
  WriteCounter& operator=(const WriteCounter&) = delete;

  WrittenRows read();
  // The recorder's whole fingerprint: the partition's last_offset and
  // txns_start (-1 and 0 when it does not exist, as Storage::partition_state
  // says), read by one statement, beside the counter. From this read on, the
  // hooks also keep the partitions rows this connection's transactions
  // update and commit.
  history::PartitionFingerprint fingerprint(const std::string& queue, const std::string& partition);
  // The same after the transaction that followed fingerprint() of the same
  // partition ended, without a statement: that reading moved by the updates
  // of its row committed since (SQLite's own new values, from the pre-update
  // hook). Read as fingerprint() does when the partition did not exist then,
  // or a partitions row was inserted or deleted since, or more rows were
  // written than the counter keeps. A statement costs as much as a fifth of
  // the push it inspects.
  history::PartitionFingerprint fingerprint_after(const std::string& queue, const std::string& partition);

  struct Log;  // the hooks' state (write_counter.cpp)

 private:
  impl::Storage& storage_;
  std::unique_ptr<Log> log_;
  std::unique_ptr<impl::Statement> fingerprint_;
  // The last fingerprint(): its partition, the partition's row (-1: none) and the reading.
  std::string fingerprinted_queue_;
  std::string fingerprinted_partition_;
  int64_t fingerprinted_row_ = -1;
  history::PartitionFingerprint fingerprinted_;
};

}  // namespace qdt::sim
