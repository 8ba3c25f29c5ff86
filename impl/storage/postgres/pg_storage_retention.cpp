// Retention and the sidecar purge (docs/semantics.md §2.8) through the interface's step
// functions, each call its own transaction under the partition row's lock;
// the cutoffs are computed here from the storage clock, as the interface
// asks of its caller.
#include <algorithm>
#include <cassert>
#include <climits>

#include "impl/reached.h"
#include "impl/storage/postgres/pg_sql.h"
#include "impl/storage/postgres/pg_storage.h"
#include "impl/storage/postgres/timestamp_text.h"

namespace qdt::impl::postgres {
namespace {

std::vector<SegmentSpan> spans_of(const nlohmann::json& rows) {
  std::vector<SegmentSpan> out;
  for (const auto& r : rows) out.push_back({r.at(0).get<int64_t>(), r.at(1).get<int64_t>(), r.at(2).get<int64_t>() / 1000});
  return out;
}

// What `before` holds that `after` does not (both in offset order).
std::vector<SegmentSpan> removed(const std::vector<SegmentSpan>& before, const std::vector<SegmentSpan>& after) {
  std::vector<SegmentSpan> out;
  for (const SegmentSpan& s : before) {
    const bool kept = std::any_of(after.begin(), after.end(), [&](const SegmentSpan& a) {
      return a.base_offset == s.base_offset;
    });
    if (!kept) out.push_back(s);
  }
  return out;
}

Param us_or_null(bool on, int64_t ms) {
  return on ? Param::text(std::to_string(timestamp_us_from_ms(ms))) : Param::null();
}

}  // namespace

std::vector<SegmentSpan> PgStorage::spans(PgTransaction& tx, const std::string& table, const std::string& pid) {
  const StatementOutcome out = tx.run_ungated(table == "log_txns" ? sql::kSidecarSpans : sql::kSegmentSpans,
                                              {Param::text(pid)});
  std::vector<SegmentSpan> result;
  for (const auto& r : out.rows) result.push_back({std::stoll(*r[0]), std::stoll(*r[1]), std::stoll(*r[2]) / 1000});
  return result;
}

std::vector<std::pair<std::string, std::string>> PgStorage::list_partitions(PgTransaction* tx,
                                                                            const std::optional<std::string>& queue) {
  const char* statement = queue ? sql::kListQueuePartitions : sql::kListPartitions;
  std::vector<Param> params;
  if (queue) params.push_back(Param::text(*queue));
  const StatementOutcome out = tx ? tx->run(statement, params, StatementKind::read) : inspect(statement, params);
  std::vector<std::pair<std::string, std::string>> names;
  for (const auto& r : out.rows) names.emplace_back(*r[0], *r[1]);
  return names;
}

std::vector<std::pair<std::string, std::string>> PgStorage::partitions(const std::optional<std::string>& queue) {
  PgTransaction tx = begin(TxnKind::retention);
  auto names = list_partitions(&tx, queue);
  tx.commit();
  return names;
}

std::vector<std::pair<std::string, std::string>> PgStorage::inspect_partitions() {
  return list_partitions(nullptr, std::nullopt);
}

RetentionDelete PgStorage::delete_expired_segments(const std::string& queue, const std::string& partition) {
  RetentionDelete result;
  PgTransaction tx = begin(TxnKind::retention);
  result.now_ms = clock_.now_ms();
  if (const auto row = find_partition(&tx, queue, partition)) {
    const QueueOptions& o = row->options;
    const bool foreign = !run_.interface().qdt_reads;
    const auto before = foreign ? spans(tx, "log_segments", row->pid) : std::vector<SegmentSpan>{};
    const StatementOutcome out = tx.run(
        sql::kRetentionStep,
        {Param::text(row->pid), us_or_null(o.retention_seconds > 0, result.now_ms - o.retention_seconds * 1000),
         us_or_null(o.completed_retention_seconds > 0, result.now_ms - o.completed_retention_seconds * 1000),
         Param::text(std::to_string(INT_MAX))},
        StatementKind::write, true);
    const nlohmann::json answer = nlohmann::json::parse(out.value(0, 0));
    result.deleted = answer.contains("qdtDeleted") ? spans_of(answer.at("qdtDeleted"))
                                                   : removed(before, spans(tx, "log_segments", row->pid));
    if (!result.deleted.empty()) QDT_REACHED("retention.deleted_segments");
    if (options_.variant == Variant::sidecar_with_segment && !result.deleted.empty()) {
      std::string ends = "{";
      for (const SegmentSpan& s : result.deleted) ends += (ends.size() > 1 ? "," : "") + std::to_string(s.end_offset);
      tx.run(sql::kDeleteSidecarRows, {Param::text(row->pid), Param::text(ends + "}")}, StatementKind::write);
    }
  }
  tx.commit();
  return result;
}

PurgeStep PgStorage::purge_step(const std::string& queue, const std::string& partition) {
  PurgeStep step;
  step.batch = options_.purge_batch;
  PgTransaction tx = begin(TxnKind::purge);
  step.now_ms = clock_.now_ms();
  const auto row = find_partition(&tx, queue, partition);
  if (!row) {
    tx.commit();
    return step;
  }
  // The purge-below-floor variant keeps the sidecar only as long as the window.
  step.floor_seconds = options_.variant == Variant::purge_below_floor ? row->options.dedup_window_seconds
                                                                      : sidecar_floor_seconds(row->options);
  if (row->options.completed_retention_seconds > std::max<int64_t>(row->options.dedup_window_seconds, 900)) {
    QDT_REACHED("purge.floor_set_by_completed_retention");
  }
  const bool foreign = !run_.interface().qdt_reads;
  const auto before = foreign ? spans(tx, "log_txns", row->pid) : std::vector<SegmentSpan>{};
  const StatementOutcome out = tx.run(sql::kPurgeStep,
                                      {Param::text(row->pid),
                                       Param::text(std::to_string(timestamp_us_from_ms(step.now_ms - step.floor_seconds * 1000))),
                                       Param::text(std::to_string(std::min<int64_t>(options_.purge_batch, INT_MAX)))},
                                      StatementKind::write, true);
  const nlohmann::json answer = nlohmann::json::parse(out.value(0, 0));
  step.rows = answer.contains("qdtDeleted") ? spans_of(answer.at("qdtDeleted"))
                                            : removed(before, spans(tx, "log_txns", row->pid));
  step.txns_start_after = answer.at("new_txns_start").get<int64_t>();
  step.more = static_cast<int64_t>(step.rows.size()) == options_.purge_batch;
  if (!step.rows.empty()) QDT_REACHED(step.more ? "purge.full_batch_more_left" : "purge.purged_rows");
  tx.commit();
  return step;
}

std::optional<SegmentSpan> PgStorage::delete_segment(const std::string& queue, const std::string& partition,
                                                     int64_t offset) {
  PgTransaction tx = begin(TxnKind::admin);
  std::optional<SegmentSpan> span;
  if (const auto row = find_partition(&tx, queue, partition, RowLock::update)) {
    if (auto seg = covering(tx, row->pid, offset)) {
      span = SegmentSpan{seg->base_offset, seg->end_offset, seg->created_at_ms};
      tx.run(sql::kDeleteSegment, {Param::text(row->pid), Param::text(std::to_string(seg->base_offset))},
             StatementKind::write);
    }
  }
  tx.commit();
  return span;
}

}  // namespace qdt::impl::postgres
