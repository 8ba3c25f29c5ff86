#pragma once
// One client connection of a storage engine: what the world, the retention
// loop, the admin and the inspector ask of storage, whichever engine answers
// (SQLite's impl/storage/sqlite/, PostgreSQL's impl/storage/postgres/). The
// broker never sees it: it reaches storage through StoragePort, which the
// world implements over one of these.
//
// Every call but the inspection reads is its own transaction, each statement
// crossing the connection's StatementGate; each throws StorageError when the
// transaction failed whole, committing nothing.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "impl/queue_options.h"
#include "impl/storage/storage_types.h"

namespace qdt::impl {

class StorageEngine {
 public:
  virtual ~StorageEngine() = default;

  // Creates the queue when missing, then applies `patch` (validated by the
  // caller) to its options.
  virtual QueueOptions configure(const std::string& queue, const nlohmann::json& patch) = 0;
  virtual void set_options(const std::string& queue, const QueueOptions& options) = 0;

  // The push transaction (docs/semantics.md §2.4).
  virtual PushResult push(const SegmentPush& segment) = 0;
  // Several partitions' segments in one transaction (docs/semantics.md
  // §9.5), answered in order. Only an engine with row locks has it.
  virtual std::vector<PushResult> push_bundle(const std::vector<SegmentPush>& segments) {
    throw StorageError("this storage engine does not push bundles");
  }
  // The segment covering `offset`, if still present (docs/semantics.md §2.6).
  virtual std::optional<CoveringSegment> covering_segment(const std::string& queue, const std::string& partition,
                                                          int64_t offset) = 0;
  // Sidecar rows with end_offset > after_offset and created_at >= since_ms,
  // in offset order, with last_offset, in one snapshot (cache hydration).
  virtual SidecarRead read_sidecar(const std::string& queue, const std::string& partition, int64_t after_offset,
                                   int64_t since_ms) = 0;
  // Ack by transactionId (docs/semantics.md §2.9).
  virtual AckResult ack(const std::string& queue, const std::string& partition, const std::string& transaction_id,
                        const std::string& consumer_group) = 0;
  // Stored messages in offset order from `from`; limit <= 0: all (§2.10).
  virtual std::vector<StoredMessage> read(const std::string& queue, const std::string& partition, int64_t from,
                                          int64_t limit) = 0;

  // Retention and purge (§2.8), in steps the caller drives.
  virtual std::vector<std::pair<std::string, std::string>> partitions(const std::optional<std::string>& queue) = 0;
  virtual RetentionDelete delete_expired_segments(const std::string& queue, const std::string& partition) = 0;
  virtual PurgeStep purge_step(const std::string& queue, const std::string& partition) = 0;
  virtual void set_purge_batch(int64_t rows) = 0;

  // Fault: deletes the segment covering `offset`, leaving the sidecar.
  virtual std::optional<SegmentSpan> delete_segment(const std::string& queue, const std::string& partition,
                                                    int64_t offset) = 0;

  // Read-only inspection for checkers, metrics and expectations, between
  // transactions (never inside another connection's).
  virtual QueueOptions options(const std::string& queue) = 0;
  virtual PartitionState partition_state(const std::string& queue, const std::string& partition) = 0;
  virtual PartitionRows partition_rows(const std::string& queue, const std::string& partition) = 0;
  virtual int64_t stored_messages(const std::string& queue, const std::string& partition) = 0;
  virtual int64_t sidecar_rows() = 0;
  virtual int64_t segment_count() = 0;
  virtual std::vector<std::pair<std::string, std::string>> inspect_partitions() = 0;
  virtual std::vector<StoredMessage> inspect_messages(const std::string& queue, const std::string& partition) = 0;
  virtual bool in_transaction() const = 0;
  // Empties every table the engine owns, keeping the schema, so the next
  // run starts as on a fresh database; no other connection may hold a lock.
  virtual void clear_rows() = 0;
};

}  // namespace qdt::impl
