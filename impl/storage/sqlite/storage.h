#pragma once
// The storage authority on SQLite (docs/semantics.md §2.4, 2.6-2.10), as seen through one
// connection.
//
// Per partition it keeps `last_offset`, `txns_start`, the segments (span,
// created_at, packed frames) and the sidecar `log_txns` (span, created_at, the
// K 16-byte hashes in frame order). The push is one transaction under the
// write serializer — SQLite's write lock, taken by BEGIN IMMEDIATE — in which
// `now` is read, the sidecar is probed in SQL (a registered function matches
// hashes row by row), and then either `duplicate` is answered writing nothing,
// or offsets are allocated and segment + sidecar row inserted.
//
// Several Storage objects (one per broker, the retention loop, the admin) open
// the same database; every statement of a transaction crosses the
// connection's StatementGate (impl/storage/sqlite/connection.h), where other clients may run.
// Time is read from the StorageClock, inside the transaction.
//
// Files: storage.cpp (connection, configure, inspection), storage_push.cpp
// (probe and push), storage_retention.cpp (retention and purge),
// storage_read.cpp (ack, read, covering fetch, hydration read).
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "impl/storage/sqlite/connection.h"
#include "impl/queue_options.h"
#include "impl/storage/engine.h"
#include "impl/storage/sqlite/schema.h"
#include "impl/storage/storage_types.h"
#include "impl/variant.h"

namespace qdt::impl {

struct StorageOptions {
  int64_t purge_batch = 1000;  // bounds each purge step
  // Checked mode (docs/semantics.md §5 cache-transparency): a push carrying a usable
  // watermark also runs the probe with -1 inside the same transaction,
  // ungated (an instrument, not work), and reports both answers.
  bool checked_mode = false;
  Variant variant = Variant::none;  // docs/semantics.md §7: chosen once, here
  // PRAGMA synchronous for a file database ("FULL", "NORMAL", "OFF"); empty
  // keeps SQLite's default (in-memory databases have nothing to sync).
  std::string synchronous;
  // PRAGMA page_size for a database this connection creates (0: SQLite's
  // 4096); a database that exists keeps the size it was made with.
  int64_t page_size_bytes = 0;
};

class Storage final : public StorageEngine {
 public:
  // A connection to the database at `uri` (a file, or "file:/NAME?vfs=memdb"
  // shared by every connection that names it); creates the schema if missing.
  Storage(const std::string& uri, StorageClock& clock, StatementGate* gate = nullptr, StorageOptions options = {});
  // A private in-memory database (tests, benchmarks).
  explicit Storage(StorageClock& clock, StorageOptions options = {});
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  // The URI of a named in-memory database shared by every connection of this process.
  static std::string shared_memory_uri(const std::string& name);

  // Creates the queue when missing, then applies `patch` (docs/semantics.md §2.2 options,
  // validated by the caller) to its options, in one write transaction.
  QueueOptions configure(const std::string& queue, const nlohmann::json& patch) override;
  void set_options(const std::string& queue, const QueueOptions& options) override;

  // The push transaction (docs/semantics.md §2.4). Throws StorageError, committing nothing.
  PushResult push(const SegmentPush& segment) override;

  // The segment covering `offset`, if it is still present (docs/semantics.md §2.6).
  std::optional<CoveringSegment> covering_segment(const std::string& queue, const std::string& partition,
                                                  int64_t offset) override;

  // Sidecar rows with end_offset > after_offset and created_at >= since_ms, in
  // offset order, with last_offset, in one snapshot (cache hydration).
  SidecarRead read_sidecar(const std::string& queue, const std::string& partition, int64_t after_offset,
                           int64_t since_ms) override;

  // Ack by transactionId through the sidecar (docs/semantics.md §2.9).
  AckResult ack(const std::string& queue, const std::string& partition, const std::string& transaction_id,
                const std::string& consumer_group) override;

  // Stored messages in offset order from `from`; limit <= 0: all (docs/semantics.md §2.10).
  std::vector<StoredMessage> read(const std::string& queue, const std::string& partition, int64_t from,
                                  int64_t limit) override;

  // Retention (docs/semantics.md §2.8), in steps the caller drives; each its own transaction.
  std::vector<std::pair<std::string, std::string>> partitions(const std::optional<std::string>& queue) override;
  RetentionDelete delete_expired_segments(const std::string& queue, const std::string& partition) override;
  PurgeStep purge_step(const std::string& queue, const std::string& partition) override;

  // Fault: deletes the segment covering `offset`, leaving the sidecar.
  std::optional<SegmentSpan> delete_segment(const std::string& queue, const std::string& partition, int64_t offset) override;

  // Read-only inspection, ungated: for checkers, metrics and expectations.
  // The caller guarantees no other connection holds the write lock (the
  // world calls these between transactions, or inside this connection's own).
  QueueOptions options(const std::string& queue) override;
  PartitionState partition_state(const std::string& queue, const std::string& partition) override;
  PartitionRows partition_rows(const std::string& queue, const std::string& partition) override;
  int64_t stored_messages(const std::string& queue, const std::string& partition) override;
  int64_t sidecar_rows() override;
  int64_t segment_count() override;
  bool in_transaction() const override { return conn_.in_transaction(); }
  // Deletes every row of every table in one write transaction, keeping the
  // schema: afterwards the database answers every query as a fresh one does
  // (INTEGER PRIMARY KEYs restart at 1). For reusing open connections
  // (sim/world/storage_pool.h); no other connection may hold a lock meanwhile.
  void clear_rows() override;
  // The bound of each purge step from now on (>= 1).
  void set_purge_batch(int64_t rows) override;
  // The connection itself, for instruments the testbed attaches at this seam
  // (sim/world/write_counter.h); nothing in impl reads what they add.
  Database& database() { return conn_.db(); }
  // PRAGMA integrity_check, its rows joined by "; " ("ok" when sound).
  std::string integrity_check();
  // PRAGMA page_size: what the database was created with.
  int64_t page_size_bytes();
  std::vector<std::pair<std::string, std::string>> inspect_partitions() override;
  std::vector<StoredMessage> inspect_messages(const std::string& queue, const std::string& partition) override;

 private:
  struct PartitionRow {
    int64_t partition_id = 0;
    int64_t last_offset = -1;
    int64_t txns_start = 0;
    QueueOptions options;
  };
  using PushPolicy = PushResult (Storage::*)(const SegmentPush&);
  using FloorPolicy = int64_t (*)(const QueueOptions&);
  using WatermarkPolicy = bool (*)(const SegmentPush&, int64_t window_seconds);
  using RetirePolicy = void (Storage::*)(int64_t partition_id, int64_t end_offset);

  void init();
  // `gated`: a statement of the open transaction; else an inspection read.
  std::optional<PartitionRow> find_partition(const std::string& queue, const std::string& partition,
                                             bool gated = true);
  PartitionRow find_or_create_partition(const std::string& queue, const std::string& partition);
  std::optional<CoveringSegment> covering(int64_t partition_id, int64_t offset);
  std::vector<std::pair<uint32_t, int64_t>> probe(Statement& statement, int64_t partition_id, int64_t from,
                                                  int64_t since_ms, const std::string& hashes, size_t frame_count,
                                                  bool gated);
  bool step(Statement& s, StatementKind kind, bool gated);
  std::vector<std::pair<std::string, std::string>> list_partitions(const std::optional<std::string>& queue,
                                                                   bool gated);
  std::vector<StoredMessage> read_messages(const std::string& queue, const std::string& partition, int64_t from,
                                           int64_t limit, bool gated);

  // Push policies (docs/semantics.md §7), one chosen at construction.
  PushResult push_under_lock(const SegmentPush& segment);
  PushResult push_stamped_before_lock(const SegmentPush& segment);
  PushResult push_probe_outside_lock(const SegmentPush& segment);
  static bool guarded_watermark(const SegmentPush& segment, int64_t window_seconds);
  static bool unguarded_watermark(const SegmentPush& segment, int64_t window_seconds);
  // Retention's deletion of one expired segment (docs/semantics.md §2.8): the segment only,
  // or (variant sidecar-with-segment) its sidecar row too.
  void retire_segment(int64_t partition_id, int64_t end_offset);
  void retire_segment_and_sidecar(int64_t partition_id, int64_t end_offset);
  // The body shared by the policies: inside `tx`, which holds the write lock.
  PushResult push_locked(Txn& tx, const SegmentPush& segment, int64_t now_ms);
  void write_segment(const PartitionRow& row, const SegmentPush& segment, const std::string& hashes,
                     PushResult& result);

  StorageClock& clock_;
  StorageOptions options_;
  Connection conn_;
  ProbeCounter counter_;
  std::unique_ptr<Statements> st_;
  PushPolicy push_policy_ = &Storage::push_under_lock;
  Statement* probe_statement_ = nullptr;  // the partition's own probe, or the queue-wide one
  bool probe_enabled_ = true;
  FloorPolicy floor_policy_ = nullptr;
  WatermarkPolicy watermark_policy_ = nullptr;
  RetirePolicy retire_policy_ = &Storage::retire_segment;
};

}  // namespace qdt::impl
