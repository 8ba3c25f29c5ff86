#include "impl/storage/postgres/pg_storage.h"

#include <cassert>

#include "impl/storage/postgres/pg_sql.h"

namespace qdt::impl::postgres {

PgStorage::PgStorage(PgRun& run, std::string client_name, StorageClock& clock, StatementGate* gate,
                     PgStorageOptions options)
    : run_(run),
      clock_(clock),
      gate_(gate != nullptr ? gate : &default_gate_),
      options_(options),
      session_(std::make_unique<Session>(run.base_conninfo(), run.database(), std::move(client_name))) {
  assert(options_.purge_batch >= 1);
  run_.attach(*session_);
}

PgStorage::~PgStorage() { run_.detach(*session_); }

void PgStorage::reopen_if_closed() {
  if (!session_->closed()) return;
  auto fresh = std::make_unique<Session>(run_.base_conninfo(), run_.database(), session_->name());
  run_.detach(*session_);
  session_ = std::move(fresh);
  run_.attach(*session_);
  assert(!session_->closed());
}

PgTransaction PgStorage::begin(TxnKind kind) {
  reopen_if_closed();
  return PgTransaction(run_, *session_, *gate_, clock_, kind);
}

StatementOutcome PgStorage::inspect(const std::string& sql, const std::vector<Param>& params) {
  reopen_if_closed();
  run_.clock_before_inspection(sql);
  return session_->run(run_.probe(), sql, params, run_.others_outside_transactions(*session_));
}

void PgStorage::clear_rows() { run_.reset_rows(); }

void PgStorage::set_purge_batch(int64_t rows) {
  assert(rows >= 1);
  options_.purge_batch = rows;
}

std::optional<PgStorage::PartitionRow> PgStorage::find_partition(PgTransaction* tx, const std::string& queue,
                                                                 const std::string& partition, RowLock lock) {
  const std::vector<Param> params{Param::text(queue), Param::text(partition)};
  assert(tx || lock == RowLock::none);
  const char* statement = lock == RowLock::share    ? sql::kFindPartitionShared
                          : lock == RowLock::update ? sql::kFindPartitionLocked
                                                    : sql::kFindPartition;
  const StatementOutcome out = tx ? tx->run(statement, params, StatementKind::read, lock == RowLock::update)
                                  : inspect(statement, params);
  if (out.rows.empty()) return std::nullopt;
  PartitionRow row;
  row.pid = out.value(0, 0);
  row.last_offset = std::stoll(out.value(0, 1));
  row.txns_start = std::stoll(out.value(0, 2));
  row.options.dedup_window_seconds = std::stoll(out.value(0, 3));
  row.options.retention_seconds = std::stoll(out.value(0, 4));
  row.options.completed_retention_seconds = std::stoll(out.value(0, 5));
  return row;
}

QueueOptions PgStorage::configure(const std::string& queue, const nlohmann::json& patch) {
  PgTransaction tx = begin(TxnKind::admin);
  // Configures of one queue, and pushes creating its rows, take turns: the
  // options read here are still the queue's when the upsert commits.
  tx.run(sql::kQueueCreationTurn, {Param::text(queue)}, StatementKind::write);
  tx.run(sql::kQueuePartitionTurns, {Param::text(queue)}, StatementKind::write, false, true);
  QueueOptions next;
  const StatementOutcome current = tx.run(sql::kSelectOptions, {Param::text(queue)}, StatementKind::read);
  if (!current.rows.empty()) {
    next.dedup_window_seconds = std::stoll(current.value(0, 0));
    next.retention_seconds = std::stoll(current.value(0, 1));
    next.completed_retention_seconds = std::stoll(current.value(0, 2));
  }
  if (const auto error = apply_options(patch, "", next)) {
    throw StorageError("configure " + queue + ": " + *error, 19 /* SQLITE_CONSTRAINT */);
  }
  tx.run(sql::kUpsertOptionsLockingPartitions,
         {Param::text(queue), Param::text(std::to_string(next.dedup_window_seconds)),
          Param::text(std::to_string(next.retention_seconds)),
          Param::text(std::to_string(next.completed_retention_seconds))},
         StatementKind::write);
  tx.commit();
  return next;
}

void PgStorage::set_options(const std::string& queue, const QueueOptions& options) {
  configure(queue, nlohmann::json{{"dedupWindowSeconds", options.dedup_window_seconds},
                                  {"retentionSeconds", options.retention_seconds},
                                  {"completedRetentionSeconds", options.completed_retention_seconds}});
}

QueueOptions PgStorage::options(const std::string& queue) {
  const StatementOutcome out = inspect(sql::kSelectOptions, {Param::text(queue)});
  QueueOptions options;
  if (!out.rows.empty()) {
    options.dedup_window_seconds = std::stoll(out.value(0, 0));
    options.retention_seconds = std::stoll(out.value(0, 1));
    options.completed_retention_seconds = std::stoll(out.value(0, 2));
  }
  return options;
}

PartitionState PgStorage::partition_state(const std::string& queue, const std::string& partition) {
  PartitionState state;
  if (const auto row = find_partition(nullptr, queue, partition)) {
    state.exists = true;
    state.last_offset = row->last_offset;
    state.txns_start = row->txns_start;
  }
  return state;
}

PartitionRows PgStorage::partition_rows(const std::string& queue, const std::string& partition) {
  const StatementOutcome out = inspect(sql::kPartitionRows, {Param::text(queue), Param::text(partition)});
  PartitionRows rows;
  if (!out.rows.empty()) {
    rows.last_offset = std::stoll(out.value(0, 0));
    rows.txns_start = std::stoll(out.value(0, 1));
    rows.segments = std::stoll(out.value(0, 2));
    rows.sidecar_rows = std::stoll(out.value(0, 3));
  }
  return rows;
}

int64_t PgStorage::stored_messages(const std::string& queue, const std::string& partition) {
  return std::stoll(inspect(sql::kStoredMessages, {Param::text(queue), Param::text(partition)}).value(0, 0));
}

int64_t PgStorage::sidecar_rows() { return std::stoll(inspect(sql::kSidecarCount, {}).value(0, 0)); }

int64_t PgStorage::segment_count() { return std::stoll(inspect(sql::kSegmentCount, {}).value(0, 0)); }

}  // namespace qdt::impl::postgres
