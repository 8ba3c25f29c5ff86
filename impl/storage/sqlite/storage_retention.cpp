// Retention and the sidecar purge (docs/semantics.md §2.8): each call is its own write
// transaction, so pushes interleave between them.
#include <algorithm>
#include <cassert>

#include "impl/reached.h"
#include "impl/storage/sqlite/storage.h"

namespace qdt::impl {

std::vector<std::pair<std::string, std::string>> Storage::list_partitions(const std::optional<std::string>& queue,
                                                                          bool gated) {
  Statement& s = queue ? st_->list_queue_partitions.reset().bind(1, *queue) : st_->list_partitions.reset();
  std::vector<std::pair<std::string, std::string>> out;
  for (bool row = step(s, StatementKind::read, gated); row; row = s.step()) {
    out.emplace_back(std::string(s.column_text(0)), std::string(s.column_text(1)));
  }
  s.reset();
  return out;
}

std::vector<std::pair<std::string, std::string>> Storage::partitions(const std::optional<std::string>& queue) {
  Txn tx(conn_, TxnKind::retention, false);
  auto out = list_partitions(queue, true);
  tx.commit();
  return out;
}

std::vector<std::pair<std::string, std::string>> Storage::inspect_partitions() {
  return list_partitions(std::nullopt, false);
}

RetentionDelete Storage::delete_expired_segments(const std::string& queue, const std::string& partition) {
  RetentionDelete result;
  Txn tx(conn_, TxnKind::retention, true);
  result.now_ms = clock_.now_ms();
  const auto row = find_partition(queue, partition);
  if (row) {
    const QueueOptions& o = row->options;
    Statement& s = st_->expired_segments.reset();
    s.bind(1, row->partition_id)
        .bind(2, result.now_ms - o.retention_seconds * 1000)
        .bind(3, result.now_ms - o.completed_retention_seconds * 1000)
        .bind(4, o.retention_seconds)
        .bind(5, o.completed_retention_seconds);
    for (bool more = conn_.step(s, StatementKind::read); more; more = s.step()) {
      result.deleted.push_back({s.column_int(0), s.column_int(1), s.column_int(2)});
    }
    s.reset();
    if (!result.deleted.empty()) QDT_REACHED("retention.deleted_segments");
    for (const SegmentSpan& span : result.deleted) (this->*retire_policy_)(row->partition_id, span.end_offset);
  }
  tx.commit();
  return result;
}

void Storage::retire_segment(int64_t partition_id, int64_t end_offset) {
  // The sidecar row stays: it outlives its segment (docs/semantics.md §2.8), so a repeat is
  // still a duplicate (with the zero id) while the row is inside the window.
  conn_.run(st_->delete_segment_row.reset().bind(1, partition_id).bind(2, end_offset));
}

void Storage::retire_segment_and_sidecar(int64_t partition_id, int64_t end_offset) {
  conn_.run(st_->delete_segment_row.reset().bind(1, partition_id).bind(2, end_offset));
  conn_.run(st_->delete_sidecar_row.reset().bind(1, partition_id).bind(2, end_offset));
}

PurgeStep Storage::purge_step(const std::string& queue, const std::string& partition) {
  PurgeStep step;
  step.batch = options_.purge_batch;
  Txn tx(conn_, TxnKind::purge, true);  // each bounded step commits on its own
  step.now_ms = clock_.now_ms();
  const auto row = find_partition(queue, partition);
  if (!row) {
    tx.commit();
    return step;
  }
  step.floor_seconds = floor_policy_(row->options);
  // The floor is max(window, completedRetentionSeconds, 900) (docs/semantics.md §2.8): the
  // retention term decides it only above both others.
  if (row->options.completed_retention_seconds > std::max<int64_t>(row->options.dedup_window_seconds, 900)) {
    QDT_REACHED("purge.floor_set_by_completed_retention");
  }
  Statement& s = st_->purge_select.reset()
                     .bind(1, row->partition_id)
                     .bind(2, step.now_ms - step.floor_seconds * 1000)
                     .bind(3, options_.purge_batch);
  for (bool more = conn_.step(s, StatementKind::read); more; more = s.step()) {
    step.rows.push_back({s.column_int(0), s.column_int(1), s.column_int(2)});
  }
  s.reset();
  for (const SegmentSpan& r : step.rows) {
    conn_.run(st_->purge_delete.reset().bind(1, row->partition_id).bind(2, r.end_offset));
  }
  Statement& u = st_->update_txns_start.reset().bind(1, row->partition_id);
  const bool updated = conn_.step(u, StatementKind::write);
  assert(updated);
  step.txns_start_after = u.column_int(0);
  u.reset();
  step.more = static_cast<int64_t>(step.rows.size()) == options_.purge_batch;
  if (!step.rows.empty()) QDT_REACHED(step.more ? "purge.full_batch_more_left" : "purge.purged_rows");
  tx.commit();
  return step;
}

std::optional<SegmentSpan> Storage::delete_segment(const std::string& queue, const std::string& partition,
                                                   int64_t offset) {
  Txn tx(conn_, TxnKind::admin, true);
  std::optional<SegmentSpan> span;
  if (const auto row = find_partition(queue, partition)) {
    if (auto seg = covering(row->partition_id, offset)) {
      span = SegmentSpan{seg->base_offset, seg->end_offset, seg->created_at_ms};
      conn_.run(st_->delete_segment_row.reset().bind(1, row->partition_id).bind(2, seg->end_offset));
    }
  }
  tx.commit();
  return span;
}

}  // namespace qdt::impl
