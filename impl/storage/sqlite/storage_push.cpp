// The push transaction (docs/semantics.md §2.4): probe-then-allocate under the write lock,
// and the design variants that move the probe or the stamp out of it (docs/semantics.md §7).
#include <algorithm>
#include <cassert>
#include <stdexcept>

#include "impl/storage/push_reach.h"
#include "impl/storage/sqlite/storage.h"

namespace qdt::impl {
namespace {

std::string pack_hashes(const std::vector<Frame>& frames) {
  std::string out;
  out.reserve(16 * frames.size());
  for (const Frame& f : frames) out.append(reinterpret_cast<const char*>(f.hash.bytes.data()), 16);
  return out;
}

}  // namespace

// The window guard (docs/semantics.md §2.11): a watermark is only used when it was computed
// with at least the window in force: a widened window reaches rows the cache
// never vouched for.
bool Storage::guarded_watermark(const SegmentPush& segment, int64_t window_seconds) {
  return segment.window_seconds_assumed >= 0 && window_seconds <= segment.window_seconds_assumed;
}

// Variants no-window-guard and shipped-meta-ttl: any watermark is used.
bool Storage::unguarded_watermark(const SegmentPush& segment, int64_t window_seconds) { return true; }

PushResult Storage::push(const SegmentPush& segment) {
  assert(!segment.frames.empty());
  assert(segment.p_verified >= -1);
  return (this->*push_policy_)(segment);
}

// Runs a probe statement (?1 partition, ?2 from, ?3 since, ?4 incoming hashes)
// and returns, per matched frame, its smallest original offset. Rows arrive in
// offset order, so the first match of a frame is its smallest.
std::vector<std::pair<uint32_t, int64_t>> Storage::probe(Statement& statement, int64_t partition_id, int64_t from,
                                                         int64_t since_ms, const std::string& hashes,
                                                         size_t frame_count, bool gated) {
  statement.reset()
      .bind(1, partition_id)
      .bind(2, from)
      .bind(3, since_ms)
      .bind_blob(4, hashes.data(), hashes.size());
  std::vector<int64_t> original(frame_count, -1);
  for (bool row = step(statement, StatementKind::read, gated); row; row = statement.step()) {
    if (statement.column_is_null(1)) continue;
    const int64_t base = statement.column_int(0);
    const std::string_view pairs = statement.column_blob(1);
    assert(pairs.size() % 8 == 0);
    for (size_t i = 0; i < pairs.size(); i += 8) {
      const uint32_t frame_index = match_u32(pairs.data() + i);
      assert(frame_index < original.size());
      if (original[frame_index] < 0) original[frame_index] = base + match_u32(pairs.data() + i + 4);
    }
  }
  statement.reset();
  std::vector<std::pair<uint32_t, int64_t>> duplicates;
  for (size_t i = 0; i < original.size(); ++i) {
    if (original[i] >= 0) duplicates.emplace_back(static_cast<uint32_t>(i), original[i]);
  }
  return duplicates;
}

// The reference: `now` is read after BEGIN IMMEDIATE took the write lock, so
// commit order, offset order and created_at order agree.
PushResult Storage::push_under_lock(const SegmentPush& segment) {
  Txn tx(conn_, TxnKind::push, true);
  return push_locked(tx, segment, clock_.now_ms());
}

// Variant stamp-before-lock (Queen before 0.16.0): `now` is read before the
// lock, so a push that waited for the lock may commit an older stamp at a
// higher offset than one that overtook it.
PushResult Storage::push_stamped_before_lock(const SegmentPush& segment) {
  const int64_t now_ms = clock_.now_ms();
  Txn tx(conn_, TxnKind::push, true);
  return push_locked(tx, segment, now_ms);
}

// Variant probe-outside-lock: the probe runs in a read transaction and the
// allocation in a later write transaction, so a colliding push can commit
// in between.
PushResult Storage::push_probe_outside_lock(const SegmentPush& segment) {
  PushResult result;
  const std::string hashes = pack_hashes(segment.frames);
  {
    Txn read(conn_, TxnKind::push, false);
    const auto row = find_partition(segment.queue, segment.partition);
    result.now_ms = clock_.now_ms();
    if (row) {
      result.window_seconds = row->options.dedup_window_seconds;
      result.last_offset_before = row->last_offset;
      const int64_t from = std::max(watermark_policy_(segment, result.window_seconds) ? segment.p_verified
                                                                                      : int64_t{-1},
                                    row->txns_start - 1);
      if (result.window_seconds > 0 && row->last_offset > from) {
        result.probe_ran = true;
        const uint64_t rows_before = counter_.rows;
        result.duplicates = probe(*probe_statement_, row->partition_id, from,
                                  result.now_ms - result.window_seconds * 1000, hashes, segment.frames.size(), true);
        result.rows_scanned = counter_.rows - rows_before;
      }
    }
    read.commit();
  }
  if (!result.duplicates.empty()) return result;
  Txn tx(conn_, TxnKind::push, true);
  const PartitionRow row = find_or_create_partition(segment.queue, segment.partition);
  result.window_seconds = row.options.dedup_window_seconds;
  result.last_offset_before = row.last_offset;
  result.now_ms = clock_.now_ms();  // the stamp is read under the lock; only the probe ran outside it
  write_segment(row, segment, hashes, result);
  tx.commit();
  return result;
}

// Allocates K offsets and inserts the segment and its sidecar row, stamped
// result.now_ms, inside the open write transaction.
void Storage::write_segment(const PartitionRow& row, const SegmentPush& segment, const std::string& hashes,
                            PushResult& result) {
  const auto k = static_cast<int64_t>(segment.frames.size());
  // One UPDATE under the write lock allocates the span. Queen writes it
  // UPDATE ... RETURNING; in SQLite, RETURNING costs an ephemeral table per
  // statement (opened, zeroed, closed). `row` was read under this same lock, so the
  // statement sets the span from it and its change count proves that the
  // partition's last_offset was still the one read.
  conn_.run(st_->allocate.reset().bind(1, row.partition_id).bind(2, k).bind(3, row.last_offset));
  if (sqlite3_changes(conn_.handle()) != 1) {
    throw std::logic_error("storage: the partition's last_offset moved under the write lock");
  }
  const int64_t last = row.last_offset + k;
  result.queued = true;
  result.base_offset = row.last_offset + 1;
  result.created_at_ms = result.now_ms;
  const std::string blob = pack_frames(segment.frames);
  conn_.run(st_->insert_segment.reset()
                .bind(1, row.partition_id)
                .bind(2, last)
                .bind(3, result.base_offset)
                .bind(4, result.now_ms)
                .bind_blob(5, blob.data(), blob.size()));
  // The sidecar row is written even with the window at 0: acks resolve through it.
  conn_.run(st_->insert_sidecar.reset()
                .bind(1, row.partition_id)
                .bind(2, last)
                .bind(3, result.base_offset)
                .bind(4, result.now_ms)
                .bind_blob(5, hashes.data(), hashes.size()));
}

PushResult Storage::push_locked(Txn& tx, const SegmentPush& segment, int64_t now_ms) {
  const PartitionRow row = find_or_create_partition(segment.queue, segment.partition);
  PushResult result;
  result.now_ms = now_ms;
  result.window_seconds = row.options.dedup_window_seconds;
  result.last_offset_before = row.last_offset;
  const std::string hashes = pack_hashes(segment.frames);
  const int64_t since_ms = now_ms - result.window_seconds * 1000;  // inclusive (docs/semantics.md §2.7)

  if (result.window_seconds > 0 && probe_enabled_) {
    const bool watermark_used = segment.p_verified >= 0 && watermark_policy_(segment, result.window_seconds);
    if (options_.checked_mode && watermark_used && row.last_offset > row.txns_start - 1) {
      // The authority's answer without the watermark, same snapshot, same instant.
      result.checked = true;
      result.checked_duplicates = probe(st_->probe, row.partition_id, row.txns_start - 1, since_ms, hashes,
                                        segment.frames.size(), false);
      for (const auto& [frame, offset] : result.checked_duplicates) {
        if (offset <= segment.p_verified) result.checked_frames_at_or_below_watermark++;
      }
    }
    const int64_t from = std::max(watermark_used ? segment.p_verified : int64_t{-1}, row.txns_start - 1);
    mark_watermark_reached({segment.p_verified, watermark_used, row.last_offset, row.txns_start, result.window_seconds});
    if (row.last_offset > from) {
      result.probe_ran = true;
      const uint64_t rows_before = counter_.rows;
      result.duplicates =
          probe(*probe_statement_, row.partition_id, from, since_ms, hashes, segment.frames.size(), true);
      result.rows_scanned = counter_.rows - rows_before;
      mark_duplicates_reached(segment.frames.size(), result.duplicates.size());
      if (!result.duplicates.empty()) {
        tx.commit();  // wrote nothing: no offset bump, no segment, no sidecar row
        return result;
      }
    }
  }

  write_segment(row, segment, hashes, result);
  tx.commit();
  return result;
}

}  // namespace qdt::impl
