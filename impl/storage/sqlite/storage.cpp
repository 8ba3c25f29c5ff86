#include "impl/storage/sqlite/storage.h"

#include <atomic>
#include <cassert>

namespace qdt::impl {
namespace {

// The purge-below-floor variant keeps the sidecar only as long as the window.
int64_t window_only_floor_seconds(const QueueOptions& options) { return options.dedup_window_seconds; }

std::string private_memory_uri() {
  // A name per Storage, so private databases never meet.
  static std::atomic<uint64_t> next{0};
  return Storage::shared_memory_uri("qdt-private-" + std::to_string(next.fetch_add(1)));
}

}  // namespace

std::string Storage::shared_memory_uri(const std::string& name) { return "file:/" + name + "?vfs=memdb"; }

Storage::Storage(const std::string& uri, StorageClock& clock, StatementGate* gate, StorageOptions options)
    : clock_(clock), options_(options), conn_(uri, gate) {
  init();
}

Storage::Storage(StorageClock& clock, StorageOptions options)
    : clock_(clock), options_(options), conn_(private_memory_uri(), nullptr) {
  init();
}

void Storage::init() {
  assert(options_.purge_batch >= 1);
  assert(options_.synchronous.empty() || options_.synchronous == "FULL" || options_.synchronous == "NORMAL" ||
         options_.synchronous == "OFF");
  // Per connection, before the first write: how durable a COMMIT is.
  if (!options_.synchronous.empty()) conn_.db().exec("PRAGMA synchronous=" + options_.synchronous);
  create_schema(conn_.db(), options_.page_size_bytes);
  // Variant bloom-filter swaps the exact matcher for a small Bloom filter.
  register_match_function(conn_.db(), counter_,
                          options_.variant == Variant::bloom_filter ? MatchKind::bloom : MatchKind::exact);
  st_ = std::make_unique<Statements>(conn_.handle());
  // Policies are chosen once, where a designer would make the change (docs/semantics.md §7).
  switch (options_.variant) {
    case Variant::probe_outside_lock: push_policy_ = &Storage::push_probe_outside_lock; break;
    case Variant::stamp_before_lock: push_policy_ = &Storage::push_stamped_before_lock; break;
    default: push_policy_ = &Storage::push_under_lock; break;
  }
  probe_statement_ = options_.variant == Variant::queue_scope ? &st_->probe_queue : &st_->probe;
  probe_enabled_ = options_.variant != Variant::skip_probe;
  floor_policy_ = options_.variant == Variant::purge_below_floor ? window_only_floor_seconds : sidecar_floor_seconds;
  const bool unguarded = options_.variant == Variant::no_window_guard || options_.variant == Variant::shipped_meta_ttl;
  watermark_policy_ = unguarded ? unguarded_watermark : guarded_watermark;
  retire_policy_ = options_.variant == Variant::sidecar_with_segment ? &Storage::retire_segment_and_sidecar
                                                                     : &Storage::retire_segment;
}

Storage::~Storage() = default;

void Storage::clear_rows() {
  // One write transaction, statements prepared once per connection: a pool
  // empties its database before every run.
  Txn tx(conn_, TxnKind::admin, true);
  for (Statement& s : st_->clear_table) s.reset().run();
  tx.commit();
}

void Storage::set_purge_batch(int64_t rows) {
  assert(rows >= 1);
  options_.purge_batch = rows;
}

int64_t Storage::page_size_bytes() {
  Statement s(conn_.handle(), "PRAGMA page_size");
  return s.step() ? s.column_int(0) : 0;
}

std::string Storage::integrity_check() {
  Statement s(conn_.handle(), "PRAGMA integrity_check");
  std::string out;
  while (s.step()) out += (out.empty() ? "" : "; ") + std::string(s.column_text(0));
  return out;
}

bool Storage::step(Statement& s, StatementKind kind, bool gated) {
  return gated ? conn_.step(s, kind) : s.step();
}

QueueOptions Storage::configure(const std::string& queue, const nlohmann::json& patch) {
  Txn tx(conn_, TxnKind::admin, true);
  QueueOptions next;
  Statement& s = st_->select_options.reset().bind(1, queue);
  if (conn_.step(s, StatementKind::read)) {
    next.dedup_window_seconds = s.column_int(0);
    next.retention_seconds = s.column_int(1);
    next.completed_retention_seconds = s.column_int(2);
  }
  s.reset();
  const auto error = apply_options(patch, "", next);
  if (error) throw StorageError("configure " + queue + ": " + *error, SQLITE_CONSTRAINT);
  st_->upsert_options.reset()
      .bind(1, queue)
      .bind(2, next.dedup_window_seconds)
      .bind(3, next.retention_seconds)
      .bind(4, next.completed_retention_seconds);
  conn_.run(st_->upsert_options);
  tx.commit();
  return next;
}

void Storage::set_options(const std::string& queue, const QueueOptions& options) {
  configure(queue, nlohmann::json{{"dedupWindowSeconds", options.dedup_window_seconds},
                                  {"retentionSeconds", options.retention_seconds},
                                  {"completedRetentionSeconds", options.completed_retention_seconds}});
}

QueueOptions Storage::options(const std::string& queue) {
  Statement& s = st_->select_options.reset().bind(1, queue);
  QueueOptions options;
  if (s.step()) {
    options.dedup_window_seconds = s.column_int(0);
    options.retention_seconds = s.column_int(1);
    options.completed_retention_seconds = s.column_int(2);
  }
  s.reset();
  return options;
}

std::optional<Storage::PartitionRow> Storage::find_partition(const std::string& queue, const std::string& partition,
                                                             bool gated) {
  Statement& s = st_->find_partition.reset().bind(1, queue).bind(2, partition);
  std::optional<PartitionRow> row;
  if (step(s, StatementKind::read, gated)) {
    row.emplace();
    row->partition_id = s.column_int(0);
    row->last_offset = s.column_int(1);
    row->txns_start = s.column_int(2);
    row->options.dedup_window_seconds = s.column_int(3);
    row->options.retention_seconds = s.column_int(4);
    row->options.completed_retention_seconds = s.column_int(5);
  }
  s.reset();
  return row;
}

Storage::PartitionRow Storage::find_or_create_partition(const std::string& queue, const std::string& partition) {
  if (auto row = find_partition(queue, partition)) return *row;
  // A queue and a partition that do not exist yet are created by their first push (docs/semantics.md §2.1).
  conn_.run(st_->insert_queue.reset().bind(1, queue));
  conn_.run(st_->insert_partition.reset().bind(1, queue).bind(2, partition));
  auto row = find_partition(queue, partition);
  assert(row.has_value());
  return *row;
}

PartitionState Storage::partition_state(const std::string& queue, const std::string& partition) {
  PartitionState state;
  if (const auto row = find_partition(queue, partition, false)) {
    state.exists = true;
    state.last_offset = row->last_offset;
    state.txns_start = row->txns_start;
  }
  return state;
}

PartitionRows Storage::partition_rows(const std::string& queue, const std::string& partition) {
  Statement& s = st_->partition_rows.reset().bind(1, queue).bind(2, partition);
  PartitionRows rows;
  if (s.step()) {
    rows.last_offset = s.column_int(0);
    rows.txns_start = s.column_int(1);
    rows.segments = s.column_int(2);
    rows.sidecar_rows = s.column_int(3);
  }
  s.reset();
  return rows;
}

int64_t Storage::stored_messages(const std::string& queue, const std::string& partition) {
  const auto row = find_partition(queue, partition, false);
  if (!row) return 0;
  Statement& s = st_->stored_count.reset().bind(1, row->partition_id);
  const bool has = s.step();
  assert(has);
  const int64_t n = s.column_int(0);
  s.reset();
  return n;
}

int64_t Storage::sidecar_rows() {
  Statement& s = st_->sidecar_count.reset();
  s.step();
  const int64_t n = s.column_int(0);
  s.reset();
  return n;
}

int64_t Storage::segment_count() {
  Statement& s = st_->segment_count.reset();
  s.step();
  const int64_t n = s.column_int(0);
  s.reset();
  return n;
}

}  // namespace qdt::impl
