#include "impl/storage.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace qdt::impl {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS queues (
  queue_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  dedup_window_seconds INTEGER NOT NULL DEFAULT 3600 CHECK (dedup_window_seconds >= 0),
  retention_seconds INTEGER NOT NULL DEFAULT 0 CHECK (retention_seconds >= 0),
  completed_retention_seconds INTEGER NOT NULL DEFAULT 0 CHECK (completed_retention_seconds >= 0)
);
CREATE TABLE IF NOT EXISTS partitions (
  partition_id INTEGER PRIMARY KEY,
  queue_id INTEGER NOT NULL REFERENCES queues (queue_id),
  name TEXT NOT NULL,
  last_offset INTEGER NOT NULL DEFAULT -1,
  txns_start INTEGER NOT NULL DEFAULT 0,
  UNIQUE (queue_id, name)
);
-- Spans are contiguous and disjoint per partition, so end_offset identifies a
-- segment and orders segments by offset.
CREATE TABLE IF NOT EXISTS segments (
  partition_id INTEGER NOT NULL,
  end_offset INTEGER NOT NULL,
  base_offset INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL,
  frames BLOB NOT NULL,
  PRIMARY KEY (partition_id, end_offset)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS log_txns (
  partition_id INTEGER NOT NULL,
  end_offset INTEGER NOT NULL,
  base_offset INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL,
  hashes BLOB NOT NULL CHECK (length(hashes) = 16 * (end_offset - base_offset + 1)),
  PRIMARY KEY (partition_id, end_offset)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS acks (
  partition_id INTEGER NOT NULL,
  consumer_group TEXT NOT NULL,
  offset INTEGER NOT NULL,
  acked_at_ms INTEGER NOT NULL,
  PRIMARY KEY (partition_id, consumer_group, offset)
) WITHOUT ROWID;
)sql";

// Counts the sidecar rows the probe function looked at (rows_scanned).
struct ProbeCounter {
  uint64_t rows = 0;
};

struct IncomingIndex {
  // (hash, frame index), sorted by hash: built once per statement execution.
  std::vector<std::pair<Hash128, uint32_t>> sorted;
};

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t get_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

// qdt_match(row_hashes, incoming) -> NULL when no incoming hash occurs in the
// sidecar row; otherwise a blob of u32 pairs (incoming frame index, position
// in the row), one pair per matched incoming index, for its first position.
void qdt_match(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  assert(argc == 2);
  auto* counter = static_cast<ProbeCounter*>(sqlite3_user_data(ctx));
  counter->rows++;
  const auto* row = static_cast<const uint8_t*>(sqlite3_value_blob(argv[0]));
  const int row_bytes = sqlite3_value_bytes(argv[0]);
  if (row_bytes % 16 != 0) {
    sqlite3_result_error(ctx, "qdt_match: sidecar row is not a whole number of hashes", -1);
    return;
  }
  auto* index = static_cast<IncomingIndex*>(sqlite3_get_auxdata(ctx, 1));
  if (index == nullptr) {
    const auto* in = static_cast<const uint8_t*>(sqlite3_value_blob(argv[1]));
    const int in_bytes = sqlite3_value_bytes(argv[1]);
    if (in_bytes % 16 != 0) {
      sqlite3_result_error(ctx, "qdt_match: incoming is not a whole number of hashes", -1);
      return;
    }
    index = new IncomingIndex;
    for (int i = 0; i < in_bytes / 16; ++i) {
      Hash128 h;
      std::memcpy(h.bytes.data(), in + 16 * i, 16);
      index->sorted.emplace_back(h, static_cast<uint32_t>(i));
    }
    std::sort(index->sorted.begin(), index->sorted.end());
    sqlite3_set_auxdata(ctx, 1, index, [](void* p) { delete static_cast<IncomingIndex*>(p); });
    index = static_cast<IncomingIndex*>(sqlite3_get_auxdata(ctx, 1));
    if (index == nullptr) {  // SQLite may drop aux data on OOM
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  std::string out;
  for (int pos = 0; pos < row_bytes / 16; ++pos) {
    Hash128 h;
    std::memcpy(h.bytes.data(), row + 16 * pos, 16);
    auto it = std::lower_bound(index->sorted.begin(), index->sorted.end(), std::make_pair(h, uint32_t{0}));
    for (; it != index->sorted.end() && it->first == h; ++it) {
      bool seen = false;
      for (size_t k = 0; k < out.size(); k += 8) seen = seen || get_u32(out.data() + k) == it->second;
      if (seen) continue;
      put_u32(out, it->second);
      put_u32(out, static_cast<uint32_t>(pos));
    }
  }
  if (out.empty()) {
    sqlite3_result_null(ctx);
  } else {
    sqlite3_result_blob(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
  }
}

std::string pack_hashes(const std::vector<Frame>& frames) {
  std::string out;
  out.reserve(16 * frames.size());
  for (const Frame& f : frames) out.append(reinterpret_cast<const char*>(f.hash.bytes.data()), 16);
  return out;
}

// A watermark is only used when it was computed with at least the window in
// force: a widened window reaches rows the cache never vouched for.
bool watermark_usable(const SegmentPush& segment, int64_t window_seconds) {
  return segment.window_seconds_assumed >= 0 && window_seconds <= segment.window_seconds_assumed;
}

// Runs a probe statement (?1 partition, ?2 from, ?3 since, ?4 incoming hashes)
// and returns, per matched frame, its smallest original offset. Rows arrive in
// offset order, so the first match of a frame is its smallest.
std::vector<std::pair<uint32_t, int64_t>> run_probe(Statement& probe, int64_t partition_id, int64_t from,
                                                    int64_t since_ms, const std::string& hashes,
                                                    size_t frame_count) {
  probe.reset()
      .bind(1, partition_id)
      .bind(2, from)
      .bind(3, since_ms)
      .bind_blob(4, hashes.data(), hashes.size());
  std::vector<int64_t> original(frame_count, -1);
  while (probe.step()) {
    if (probe.column_is_null(1)) continue;
    const int64_t base = probe.column_int(0);
    const std::string_view pairs = probe.column_blob(1);
    assert(pairs.size() % 8 == 0);
    for (size_t i = 0; i < pairs.size(); i += 8) {
      const uint32_t frame_index = get_u32(pairs.data() + i);
      assert(frame_index < original.size());
      if (original[frame_index] < 0) original[frame_index] = base + get_u32(pairs.data() + i + 4);
    }
  }
  probe.reset();
  std::vector<std::pair<uint32_t, int64_t>> duplicates;
  for (size_t i = 0; i < original.size(); ++i) {
    if (original[i] >= 0) duplicates.emplace_back(static_cast<uint32_t>(i), original[i]);
  }
  return duplicates;
}

}  // namespace

struct Storage::Statements {
  ProbeCounter counter;
  Statement find_partition, insert_queue, insert_partition, upsert_options, select_options;
  Statement probe, probe_queue, allocate, insert_segment, insert_sidecar, covering;
  Statement read_segments, list_partitions, list_queue_partitions;
  Statement expired_segments, delete_segment_row, purge_select, purge_delete, update_txns_start;
  Statement read_sidecar;
  Statement insert_ack, ack_probe, stored_count, sidecar_count, segment_count, partition_state;
};

Storage::Storage(const std::string& path, int64_t purge_batch) : db_(path), purge_batch_(purge_batch) {
  assert(purge_batch_ >= 1);
  db_.exec(kSchema);
  if (path != ":memory:") db_.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;");
  st_ = std::make_unique<Statements>();
  if (sqlite3_create_function_v2(db_.handle(), "qdt_match", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, &st_->counter,
                                 qdt_match, nullptr, nullptr, nullptr) != SQLITE_OK) {
    db_.fail("registering qdt_match");
  }
  sqlite3* h = db_.handle();
  st_->find_partition = Statement(h,
      "SELECT p.partition_id, p.last_offset, p.txns_start, q.dedup_window_seconds, q.retention_seconds, "
      "q.completed_retention_seconds FROM queues q JOIN partitions p ON p.queue_id = q.queue_id "
      "WHERE q.name = ?1 AND p.name = ?2");
  st_->insert_queue = Statement(h, "INSERT INTO queues (name) VALUES (?1) ON CONFLICT (name) DO NOTHING");
  st_->insert_partition = Statement(h,
      "INSERT INTO partitions (queue_id, name) SELECT queue_id, ?2 FROM queues WHERE name = ?1 "
      "ON CONFLICT (queue_id, name) DO NOTHING");
  st_->upsert_options = Statement(h,
      "INSERT INTO queues (name, dedup_window_seconds, retention_seconds, completed_retention_seconds) "
      "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (name) DO UPDATE SET dedup_window_seconds = excluded.dedup_window_seconds, "
      "retention_seconds = excluded.retention_seconds, completed_retention_seconds = excluded.completed_retention_seconds");
  st_->select_options = Statement(h,
      "SELECT dedup_window_seconds, retention_seconds, completed_retention_seconds FROM queues WHERE name = ?1");
  // The probe: sidecar rows past the watermark and inside the window, in
  // offset order, each matched against the incoming hashes by qdt_match.
  st_->probe = Statement(h,
      "SELECT base_offset, qdt_match(hashes, ?4) FROM log_txns "
      "WHERE partition_id = ?1 AND end_offset > ?2 AND created_at_ms >= ?3 ORDER BY end_offset");
  st_->probe_queue = Statement(h,
      "SELECT base_offset, qdt_match(hashes, ?4) FROM log_txns "
      "WHERE partition_id IN (SELECT p.partition_id FROM partitions p WHERE p.queue_id = "
      "(SELECT queue_id FROM partitions WHERE partition_id = ?1)) "
      "AND (partition_id != ?1 OR end_offset > ?2) AND created_at_ms >= ?3 ORDER BY end_offset");
  st_->allocate = Statement(h,
      "UPDATE partitions SET last_offset = last_offset + ?2 WHERE partition_id = ?1 RETURNING last_offset");
  st_->insert_segment = Statement(h,
      "INSERT INTO segments (partition_id, end_offset, base_offset, created_at_ms, frames) VALUES (?1, ?2, ?3, ?4, ?5)");
  st_->insert_sidecar = Statement(h,
      "INSERT INTO log_txns (partition_id, end_offset, base_offset, created_at_ms, hashes) VALUES (?1, ?2, ?3, ?4, ?5)");
  st_->covering = Statement(h,
      "SELECT base_offset, end_offset, created_at_ms, frames FROM segments "
      "WHERE partition_id = ?1 AND end_offset >= ?2 ORDER BY end_offset LIMIT 1");
  st_->read_segments = Statement(h,
      "SELECT base_offset, frames FROM segments WHERE partition_id = ?1 AND end_offset >= ?2 ORDER BY end_offset");
  st_->list_partitions = Statement(h,
      "SELECT q.name, p.name FROM queues q JOIN partitions p ON p.queue_id = q.queue_id ORDER BY q.name, p.name");
  st_->list_queue_partitions = Statement(h,
      "SELECT q.name, p.name FROM queues q JOIN partitions p ON p.queue_id = q.queue_id WHERE q.name = ?1 "
      "ORDER BY p.name");
  // Expired by age (?2 = cutoff, 0 disables) or fully acknowledged and older
  // than the completed cutoff (?3, 0 disables): every offset acked by some group.
  st_->expired_segments = Statement(h,
      "SELECT s.base_offset, s.end_offset, s.created_at_ms FROM segments s WHERE s.partition_id = ?1 AND ("
      " (?4 > 0 AND s.created_at_ms < ?2) OR"
      " (?5 > 0 AND s.created_at_ms < ?3 AND (SELECT count(DISTINCT a.offset) FROM acks a"
      "   WHERE a.partition_id = s.partition_id AND a.offset BETWEEN s.base_offset AND s.end_offset)"
      "   = s.end_offset - s.base_offset + 1)) ORDER BY s.end_offset");
  st_->delete_segment_row = Statement(h, "DELETE FROM segments WHERE partition_id = ?1 AND end_offset = ?2");
  st_->purge_select = Statement(h,
      "SELECT base_offset, end_offset, created_at_ms FROM log_txns WHERE partition_id = ?1 AND created_at_ms < ?2 "
      "ORDER BY end_offset LIMIT ?3");
  st_->purge_delete = Statement(h, "DELETE FROM log_txns WHERE partition_id = ?1 AND end_offset = ?2");
  st_->update_txns_start = Statement(h,
      "UPDATE partitions SET txns_start = coalesce((SELECT min(base_offset) FROM log_txns WHERE partition_id = ?1), "
      "last_offset + 1) WHERE partition_id = ?1 RETURNING txns_start");
  st_->read_sidecar = Statement(h,
      "SELECT base_offset, end_offset, created_at_ms, hashes FROM log_txns "
      "WHERE partition_id = ?1 AND end_offset > ?2 AND created_at_ms >= ?3 ORDER BY end_offset");
  st_->insert_ack = Statement(h,
      "INSERT INTO acks (partition_id, consumer_group, offset, acked_at_ms) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT DO NOTHING");
  st_->ack_probe = Statement(h,
      "SELECT base_offset, qdt_match(hashes, ?2) AS m FROM log_txns WHERE partition_id = ?1 AND m IS NOT NULL "
      "ORDER BY end_offset LIMIT 1");
  st_->stored_count = Statement(h,
      "SELECT coalesce(sum(end_offset - base_offset + 1), 0) FROM segments WHERE partition_id = ?1");
  st_->sidecar_count = Statement(h, "SELECT count(*) FROM log_txns");
  st_->segment_count = Statement(h, "SELECT count(*) FROM segments");
}

Storage::~Storage() = default;

void Storage::configure(const std::string& queue, const QueueOptions& options) {
  Transaction tx(db_);
  st_->upsert_options.reset()
      .bind(1, queue)
      .bind(2, options.dedup_window_seconds)
      .bind(3, options.retention_seconds)
      .bind(4, options.completed_retention_seconds)
      .run();
  tx.commit();
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

std::optional<Storage::PartitionRow> Storage::find_partition(const std::string& queue, const std::string& partition) {
  Statement& s = st_->find_partition.reset().bind(1, queue).bind(2, partition);
  std::optional<PartitionRow> row;
  if (s.step()) {
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
  // A queue and a partition that do not exist yet are created by their first push (SPEC 2.1).
  st_->insert_queue.reset().bind(1, queue).run();
  st_->insert_partition.reset().bind(1, queue).bind(2, partition).run();
  auto row = find_partition(queue, partition);
  assert(row.has_value());
  return *row;
}

PushResult Storage::push(const SegmentPush& segment, int64_t now_ms) {
  assert(!segment.frames.empty());
  assert(segment.p_verified >= -1);
  const auto k = static_cast<int64_t>(segment.frames.size());
  Transaction tx(db_);  // the write serializer: held from the probe to the allocation
  const PartitionRow row = find_or_create_partition(segment.queue, segment.partition);
  PushResult result;
  result.window_seconds = row.options.dedup_window_seconds;
  result.last_offset_before = row.last_offset;
  const std::string hashes = pack_hashes(segment.frames);

  if (result.window_seconds > 0 && variant_ != Variant::skip_probe) {
    const int64_t from =
        std::max(watermark_usable(segment, result.window_seconds) ? segment.p_verified : int64_t{-1},
                 row.txns_start - 1);
    if (row.last_offset > from) {
      result.probe_ran = true;
      const uint64_t rows_before = st_->counter.rows;
      // Variant queue-scope: the probe matches every partition of the queue.
      Statement& probe = variant_ == Variant::queue_scope ? st_->probe_queue : st_->probe;
      result.duplicates = run_probe(probe, row.partition_id, from, now_ms - result.window_seconds * 1000, hashes,
                                    segment.frames.size());
      result.rows_scanned = st_->counter.rows - rows_before;
      if (!result.duplicates.empty()) {
        tx.commit();  // wrote nothing: no offset bump, no segment, no sidecar row
        return result;
      }
    }
  }

  Statement& allocate = st_->allocate.reset().bind(1, row.partition_id).bind(2, k);
  const bool allocated = allocate.step();
  assert(allocated);
  const int64_t last = allocate.column_int(0);
  allocate.reset();
  result.queued = true;
  result.base_offset = last - k + 1;
  result.created_at_ms = now_ms;
  assert(result.base_offset == row.last_offset + 1);
  const std::string blob = pack_frames(segment.frames);
  st_->insert_segment.reset()
      .bind(1, row.partition_id)
      .bind(2, last)
      .bind(3, result.base_offset)
      .bind(4, now_ms)
      .bind_blob(5, blob.data(), blob.size())
      .run();
  // The sidecar row is written even with the window at 0: acks resolve through it.
  st_->insert_sidecar.reset()
      .bind(1, row.partition_id)
      .bind(2, last)
      .bind(3, result.base_offset)
      .bind(4, now_ms)
      .bind_blob(5, hashes.data(), hashes.size())
      .run();
  tx.commit();
  return result;
}

std::optional<CoveringSegment> Storage::covering(int64_t partition_id, int64_t offset) {
  Statement& s = st_->covering.reset().bind(1, partition_id).bind(2, offset);
  std::optional<CoveringSegment> seg;
  if (s.step() && s.column_int(0) <= offset) {
    seg.emplace();
    seg->base_offset = s.column_int(0);
    seg->end_offset = s.column_int(1);
    seg->created_at_ms = s.column_int(2);
    seg->frames = std::string(s.column_blob(3));
  }
  s.reset();
  return seg;
}

std::optional<CoveringSegment> Storage::covering_segment(const std::string& queue, const std::string& partition,
                                                         int64_t offset) {
  const auto row = find_partition(queue, partition);
  if (!row) return std::nullopt;
  return covering(row->partition_id, offset);
}

Storage::ProbeCheck Storage::check_probe(const SegmentPush& segment, int64_t now_ms) {
  ProbeCheck check;
  const auto row = find_partition(segment.queue, segment.partition);
  if (!row || row->options.dedup_window_seconds == 0) return check;
  const int64_t from = row->txns_start - 1;
  if (row->last_offset <= from) return check;
  // The same rule push() applies: a watermark computed with a smaller window is ignored.
  const bool watermark_used =
      segment.p_verified >= 0 && watermark_usable(segment, row->options.dedup_window_seconds);
  const std::string hashes = pack_hashes(segment.frames);
  check.duplicates = run_probe(st_->probe, row->partition_id, from,
                               now_ms - row->options.dedup_window_seconds * 1000, hashes, segment.frames.size());
  for (const auto& [frame, offset] : check.duplicates) {
    if (watermark_used && offset <= segment.p_verified) check.frames_at_or_below_watermark++;
  }
  return check;
}

SidecarRead Storage::read_sidecar(const std::string& queue, const std::string& partition, int64_t after_offset,
                                  int64_t since_ms) {
  SidecarRead out;
  Transaction tx(db_);  // rows and last_offset from one snapshot
  if (const auto row = find_partition(queue, partition)) {
    out.last_offset = row->last_offset;
    Statement& s = st_->read_sidecar.reset().bind(1, row->partition_id).bind(2, after_offset).bind(3, since_ms);
    while (s.step()) {
      SidecarRow r{s.column_int(0), s.column_int(1), s.column_int(2), {}};
      const std::string_view blob = s.column_blob(3);
      assert(blob.size() % 16 == 0);
      for (size_t i = 0; i < blob.size(); i += 16) {
        Hash128 h;
        std::memcpy(h.bytes.data(), blob.data() + i, 16);
        r.hashes.push_back(h);
      }
      out.rows.push_back(std::move(r));
    }
    s.reset();
  }
  tx.commit();
  return out;
}

AckResult Storage::ack(const std::string& queue, const std::string& partition, const std::string& transaction_id,
                       const std::string& consumer_group, int64_t now_ms) {
  Transaction tx(db_);
  AckResult result;
  const auto row = find_partition(queue, partition);
  if (row) {
    const Hash128 hash = hash_transaction_id(transaction_id);
    Statement& s = st_->ack_probe.reset().bind(1, row->partition_id).bind_blob(2, hash.bytes.data(), 16);
    if (s.step()) {
      const std::string_view pairs = s.column_blob(1);
      assert(pairs.size() >= 8);
      result.acked = true;
      result.offset = s.column_int(0) + get_u32(pairs.data() + 4);
    }
    s.reset();
  }
  if (result.acked) {
    st_->insert_ack.reset().bind(1, row->partition_id).bind(2, consumer_group).bind(3, result.offset).bind(4, now_ms).run();
    if (auto seg = covering(row->partition_id, result.offset)) {
      if (auto frame = frame_at(seg->frames, static_cast<size_t>(result.offset - seg->base_offset))) {
        result.message_id = frame->message_id;
      }
    }
  }
  tx.commit();
  return result;
}

std::vector<StoredMessage> Storage::read(const std::string& queue, const std::string& partition, int64_t from,
                                         int64_t limit) {
  std::vector<StoredMessage> out;
  const auto row = find_partition(queue, partition);
  if (!row) return out;
  Statement& s = st_->read_segments.reset().bind(1, row->partition_id).bind(2, from);
  while (s.step()) {
    const int64_t base = s.column_int(0);
    auto frames = unpack_frames(s.column_blob(1));
    for (size_t i = 0; i < frames.size(); ++i) {
      const int64_t offset = base + static_cast<int64_t>(i);
      if (offset < from) continue;
      if (limit > 0 && static_cast<int64_t>(out.size()) >= limit) break;
      out.push_back({offset, frames[i].message_id, std::move(frames[i].transaction_id), std::move(frames[i].payload)});
    }
    if (limit > 0 && static_cast<int64_t>(out.size()) >= limit) break;
  }
  s.reset();
  return out;
}

std::vector<std::pair<std::string, std::string>> Storage::partitions(const std::optional<std::string>& queue) {
  Statement& s = queue ? st_->list_queue_partitions.reset().bind(1, *queue) : st_->list_partitions.reset();
  std::vector<std::pair<std::string, std::string>> out;
  while (s.step()) out.emplace_back(std::string(s.column_text(0)), std::string(s.column_text(1)));
  s.reset();
  return out;
}

std::vector<SegmentSpan> Storage::delete_expired_segments(const std::string& queue, const std::string& partition,
                                                          int64_t now_ms) {
  std::vector<SegmentSpan> deleted;
  Transaction tx(db_);
  const auto row = find_partition(queue, partition);
  if (row) {
    const QueueOptions& o = row->options;
    Statement& s = st_->expired_segments.reset();
    s.bind(1, row->partition_id)
        .bind(2, now_ms - o.retention_seconds * 1000)
        .bind(3, now_ms - o.completed_retention_seconds * 1000)
        .bind(4, o.retention_seconds)
        .bind(5, o.completed_retention_seconds);
    while (s.step()) deleted.push_back({s.column_int(0), s.column_int(1), s.column_int(2)});
    s.reset();
    for (const SegmentSpan& span : deleted) {
      st_->delete_segment_row.reset().bind(1, row->partition_id).bind(2, span.end_offset).run();
    }
  }
  tx.commit();
  return deleted;
}

PurgeStep Storage::purge_step(const std::string& queue, const std::string& partition, int64_t now_ms) {
  PurgeStep step;
  Transaction tx(db_);  // each bounded step autocommits on its own
  const auto row = find_partition(queue, partition);
  if (!row) {
    tx.commit();
    return step;
  }
  step.floor_seconds = sidecar_floor_seconds(row->options);
  assert(step.floor_seconds >= kSidecarFloorSeconds);
  // Variant purge-below-floor: the sidecar is kept only as long as the window.
  if (variant_ == Variant::purge_below_floor) step.floor_seconds = row->options.dedup_window_seconds;
  Statement& s = st_->purge_select.reset()
                     .bind(1, row->partition_id)
                     .bind(2, now_ms - step.floor_seconds * 1000)
                     .bind(3, purge_batch_);
  while (s.step()) step.rows.push_back({s.column_int(0), s.column_int(1), s.column_int(2)});
  s.reset();
  for (const SegmentSpan& r : step.rows) {
    st_->purge_delete.reset().bind(1, row->partition_id).bind(2, r.end_offset).run();
  }
  Statement& u = st_->update_txns_start.reset().bind(1, row->partition_id);
  const bool updated = u.step();
  assert(updated);
  step.txns_start_after = u.column_int(0);
  u.reset();
  step.more = static_cast<int64_t>(step.rows.size()) == purge_batch_;
  tx.commit();
  return step;
}

std::optional<SegmentSpan> Storage::delete_segment(const std::string& queue, const std::string& partition,
                                                   int64_t offset) {
  Transaction tx(db_);
  std::optional<SegmentSpan> span;
  if (const auto row = find_partition(queue, partition)) {
    if (auto seg = covering(row->partition_id, offset)) {
      span = SegmentSpan{seg->base_offset, seg->end_offset, seg->created_at_ms};
      st_->delete_segment_row.reset().bind(1, row->partition_id).bind(2, seg->end_offset).run();
    }
  }
  tx.commit();
  return span;
}

PartitionState Storage::partition_state(const std::string& queue, const std::string& partition) {
  PartitionState state;
  if (const auto row = find_partition(queue, partition)) {
    state.exists = true;
    state.last_offset = row->last_offset;
    state.txns_start = row->txns_start;
  }
  return state;
}

int64_t Storage::stored_messages(const std::string& queue, const std::string& partition) {
  const auto row = find_partition(queue, partition);
  if (!row) return 0;
  Statement& s = st_->stored_count.reset().bind(1, row->partition_id);
  const bool has = s.step();
  assert(has);
  const int64_t n = s.column_int(0);
  s.reset();
  return n;
}

int64_t Storage::total_changes() const { return db_.total_changes(); }

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
