#pragma once
// The storage authority on PostgreSQL (docs/semantics.md §2.4, 2.6-2.10, 9), as seen
// through one client connection: every call is a transaction of statements
// calling the queen-log-v1 functions (or qdt's own reads, or the interface's
// tables where a foreign implementation lacks them), each statement through
// the StatementGate and stepped by the run (pg_run.h).
//
// What the world needs beyond the interface's answers (the clock a push
// read, its window, the partition before it, the probe's work, the rows a
// purge or retention step removed) comes from keys qdt's own SQL adds to
// them ("qdt..."); with a foreign implementation the adapter reads it from
// the tables instead, inside the same transaction.
//
// Files: pg_storage.cpp (connection, configure, inspection),
// pg_storage_push.cpp (push), pg_storage_read.cpp (ack, read, covering fetch,
// hydration read), pg_storage_retention.cpp (retention, purge, delete).
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "impl/queue_options.h"
#include "impl/storage/engine.h"
#include "impl/storage/postgres/pg_run.h"
#include "impl/storage/postgres/pg_transaction.h"
#include "impl/storage/postgres/session.h"
#include "impl/storage/statement_gate.h"
#include "impl/storage/storage_clock.h"
#include "impl/storage/storage_types.h"
#include "impl/variant.h"

namespace qdt::impl::postgres {

struct PgStorageOptions {
  int64_t purge_batch = 1000;  // bounds each purge step
  // Checked mode (docs/semantics.md §5 cache-transparency): a push carrying a usable
  // watermark also runs the probe with -1 in the same transaction, ungated.
  bool checked_mode = false;
  Variant variant = Variant::none;  // docs/semantics.md §7; PgBackend::supports says which
};

class PgStorage final : public StorageEngine {
 public:
  // Opens the client's session on the run's database and joins the run.
  // `gate` may be null (no latency, no faults, a lock wait is an error); it
  // and `run` must outlive the connection.
  PgStorage(PgRun& run, std::string client_name, StorageClock& clock, StatementGate* gate,
            PgStorageOptions options);
  ~PgStorage() override;
  PgStorage(const PgStorage&) = delete;
  PgStorage& operator=(const PgStorage&) = delete;

  const std::string& client_name() const { return session_->name(); }

  QueueOptions configure(const std::string& queue, const nlohmann::json& patch) override;
  void set_options(const std::string& queue, const QueueOptions& options) override;
  PushResult push(const SegmentPush& segment) override;
  // One transaction through log_push_multi_v1 (docs/semantics.md §9.5).
  std::vector<PushResult> push_bundle(const std::vector<SegmentPush>& segments) override;
  std::optional<CoveringSegment> covering_segment(const std::string& queue, const std::string& partition,
                                                  int64_t offset) override;
  SidecarRead read_sidecar(const std::string& queue, const std::string& partition, int64_t after_offset,
                           int64_t since_ms) override;
  AckResult ack(const std::string& queue, const std::string& partition, const std::string& transaction_id,
                const std::string& consumer_group) override;
  std::vector<StoredMessage> read(const std::string& queue, const std::string& partition, int64_t from,
                                  int64_t limit) override;
  std::vector<std::pair<std::string, std::string>> partitions(const std::optional<std::string>& queue) override;
  RetentionDelete delete_expired_segments(const std::string& queue, const std::string& partition) override;
  PurgeStep purge_step(const std::string& queue, const std::string& partition) override;
  void set_purge_batch(int64_t rows) override;
  std::optional<SegmentSpan> delete_segment(const std::string& queue, const std::string& partition,
                                            int64_t offset) override;

  // Read-only inspection, ungated, on this connection.
  QueueOptions options(const std::string& queue) override;
  PartitionState partition_state(const std::string& queue, const std::string& partition) override;
  PartitionRows partition_rows(const std::string& queue, const std::string& partition) override;
  int64_t stored_messages(const std::string& queue, const std::string& partition) override;
  int64_t sidecar_rows() override;
  int64_t segment_count() override;
  std::vector<std::pair<std::string, std::string>> inspect_partitions() override;
  std::vector<StoredMessage> inspect_messages(const std::string& queue, const std::string& partition) override;
  bool in_transaction() const override { return session_->in_transaction(); }
  // The run's reset: every interface table emptied, the clock at zero.
  void clear_rows() override;

 private:
  struct PartitionRow {
    std::string pid;  // uuid text
    int64_t last_offset = -1;
    int64_t txns_start = 0;
    QueueOptions options;
  };
  // Opens a new connection in place of one the server closed (as a pool
  // replaces a dead one): same client name, a new backend.
  void reopen_if_closed();
  PgTransaction begin(TxnKind kind);
  // Inside `tx` (gated), or ungated on the bare connection when `tx` is null.
  // How find_partition holds the row it finds until `tx` ends.
  enum class RowLock { none, share, update };
  std::optional<PartitionRow> find_partition(PgTransaction* tx, const std::string& queue,
                                             const std::string& partition, RowLock lock = RowLock::none);
  StatementOutcome inspect(const std::string& sql, const std::vector<Param>& params);
  std::optional<CoveringSegment> covering(PgTransaction& tx, const std::string& pid, int64_t offset);
  // `found` (when given): whether the partition has a row.
  std::vector<StoredMessage> read_messages(PgTransaction* tx, const std::string& queue, const std::string& partition,
                                           int64_t from, int64_t limit, bool* found = nullptr);
  std::vector<std::pair<std::string, std::string>> list_partitions(PgTransaction* tx,
                                                                   const std::optional<std::string>& queue);
  // Segment or sidecar spans of a partition, for foreign SQL whose step
  // answers do not list what they removed.
  std::vector<SegmentSpan> spans(PgTransaction& tx, const std::string& table, const std::string& pid);
  // The watermark and window the adapter passes for a segment: the
  // segment's, or what a design variant of the adapter makes of them.
  struct AdapterWatermark {
    int64_t verified;
    std::optional<int64_t> assumed;
  };
  AdapterWatermark adapter_watermark(const SegmentPush& segment) const;
  PushResult result_of(PgTransaction& tx, const SegmentPush& segment, const nlohmann::json& answer,
                       const std::string& hashes);
  // One push transaction through log_push_one_v1 with the watermark and
  // window the adapter maps the segment's onto.
  PushResult push_transaction(const SegmentPush& segment, const std::string& hashes, int64_t verified,
                              std::optional<int64_t> assumed);
  PushResult push_probe_outside_lock(const SegmentPush& segment, const std::string& hashes, int64_t verified,
                                     std::optional<int64_t> assumed);
  // Foreign SQL: reads under the push's lock what qdt's keys would say; the
  // partition's txns_start, or nothing when the partition has no row.
  std::optional<int64_t> fill_push_fallbacks(PgTransaction& tx, const SegmentPush& segment, PushResult& result);
  // Whether storage trusted the segment's watermark with `window_seconds` in
  // force (the window guard, docs/semantics.md §2.11; foreign SQL without it trusts every one).
  bool trusts_watermark(const SegmentPush& segment, int64_t window_seconds) const;
  void mark_reached(const SegmentPush& segment, const PushResult& result, int64_t txns_start) const;
  void run_checked_probe(PgTransaction& tx, const SegmentPush& segment, const nlohmann::json& answer,
                         const std::string& hashes, PushResult& result);

  PgRun& run_;
  StorageClock& clock_;
  StatementGate default_gate_;
  StatementGate* gate_;
  PgStorageOptions options_;
  std::unique_ptr<Session> session_;
};

}  // namespace qdt::impl::postgres
