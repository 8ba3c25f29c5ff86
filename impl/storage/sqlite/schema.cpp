#include "impl/storage/sqlite/schema.h"

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
CREATE TABLE IF NOT EXISTS consumers (
  partition_id INTEGER NOT NULL,
  consumer_group TEXT NOT NULL,
  committed INTEGER NOT NULL,
  PRIMARY KEY (partition_id, consumer_group)
) WITHOUT ROWID;
)sql";

// A hash as two machine words: a probe compares every hash of every row in
// its span against the incoming ones, and memcmp calls were a third of a
// checked-mode push (cache-transparency re-probes the whole window).
struct HashWords {
  uint64_t first = 0;
  uint64_t second = 0;
  auto operator<=>(const HashWords&) const = default;
};

HashWords words_at(const uint8_t* p) {
  HashWords w;
  std::memcpy(&w.first, p, 8);
  std::memcpy(&w.second, p + 8, 8);
  return w;
}

uint64_t filter_bit(const HashWords& w) { return uint64_t{1} << (w.first & 63); }

struct IncomingIndex {
  // (hash, frame index), sorted: built once per statement execution.
  std::vector<std::pair<HashWords, uint32_t>> sorted;
  // One bit per incoming hash (64 bits, xxh3's low bits are uniform): a row
  // hash whose bit is clear matches none, without a search. With ten
  // incoming hashes, 85 % of the row's hashes stop there.
  uint64_t filter = 0;
};

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
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
      const HashWords h = words_at(in + 16 * i);
      index->sorted.emplace_back(h, static_cast<uint32_t>(i));
      index->filter |= filter_bit(h);
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
    const HashWords h = words_at(row + 16 * pos);
    if ((index->filter & filter_bit(h)) == 0) continue;
    auto it = std::lower_bound(index->sorted.begin(), index->sorted.end(), std::make_pair(h, uint32_t{0}));
    for (; it != index->sorted.end() && it->first == h; ++it) {
      bool seen = false;
      for (size_t k = 0; k < out.size(); k += 8) seen = seen || match_u32(out.data() + k) == it->second;
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

// The bloom-filter variant's matcher: a 16-bit filter per sidecar row, two
// bits per hash; false positives answer the row's first position.
uint32_t bloom_bits(const uint8_t* hash) { return (1u << (hash[15] % 16)) | (1u << (hash[14] % 16)); }

void qdt_match_bloom(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  assert(argc == 2);
  auto* counter = static_cast<ProbeCounter*>(sqlite3_user_data(ctx));
  counter->rows++;
  const auto* row = static_cast<const uint8_t*>(sqlite3_value_blob(argv[0]));
  const int row_bytes = sqlite3_value_bytes(argv[0]);
  const auto* in = static_cast<const uint8_t*>(sqlite3_value_blob(argv[1]));
  const int in_bytes = sqlite3_value_bytes(argv[1]);
  if (row_bytes % 16 != 0 || in_bytes % 16 != 0) {
    sqlite3_result_error(ctx, "qdt_match: not a whole number of hashes", -1);
    return;
  }
  uint32_t filter = 0;
  for (int pos = 0; pos < row_bytes / 16; ++pos) filter |= bloom_bits(row + 16 * pos);
  std::string out;
  for (int i = 0; i < in_bytes / 16; ++i) {
    const uint32_t bits = bloom_bits(in + 16 * i);
    if ((filter & bits) != bits) continue;
    put_u32(out, static_cast<uint32_t>(i));
    put_u32(out, 0);
  }
  if (out.empty()) {
    sqlite3_result_null(ctx);
  } else {
    sqlite3_result_blob(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
  }
}

}  // namespace

uint32_t match_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

void create_schema(Database& db, int64_t page_size_bytes) {
  // Every connection calls this and only the database's first needs the DDL:
  // asking is cheaper than parsing five CREATE TABLE IF NOT EXISTS again.
  Statement present(db.handle(),
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
                    "name IN ('queues', 'partitions', 'segments', 'log_txns', 'consumers')");
  if (present.step() && present.column_int(0) == 5) return;
  if (page_size_bytes != 0) {
    assert(page_size_bytes >= 512 && page_size_bytes <= 65536 && (page_size_bytes & (page_size_bytes - 1)) == 0);
    // The open read would pin page 1, and SQLite then ignores the size
    // without a word: let go of it first.
    present.reset();
    db.exec("PRAGMA page_size=" + std::to_string(page_size_bytes));
  }
  db.exec(kSchema);
}

void register_match_function(Database& db, ProbeCounter& counter, MatchKind kind) {
  if (sqlite3_create_function_v2(db.handle(), "qdt_match", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, &counter,
                                 kind == MatchKind::bloom ? qdt_match_bloom : qdt_match, nullptr, nullptr,
                                 nullptr) != SQLITE_OK) {
    db.fail("registering qdt_match");
  }
}

Statements::Statements(sqlite3* h) {
  find_partition = Statement::deferred(h,
      "SELECT p.partition_id, p.last_offset, p.txns_start, q.dedup_window_seconds, q.retention_seconds, "
      "q.completed_retention_seconds FROM queues q JOIN partitions p ON p.queue_id = q.queue_id "
      "WHERE q.name = ?1 AND p.name = ?2");
  insert_queue = Statement::deferred(h, "INSERT INTO queues (name) VALUES (?1) ON CONFLICT (name) DO NOTHING");
  insert_partition = Statement::deferred(h,
      "INSERT INTO partitions (queue_id, name) SELECT queue_id, ?2 FROM queues WHERE name = ?1 "
      "ON CONFLICT (queue_id, name) DO NOTHING");
  upsert_options = Statement::deferred(h,
      "INSERT INTO queues (name, dedup_window_seconds, retention_seconds, completed_retention_seconds) "
      "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (name) DO UPDATE SET dedup_window_seconds = excluded.dedup_window_seconds, "
      "retention_seconds = excluded.retention_seconds, completed_retention_seconds = excluded.completed_retention_seconds");
  select_options = Statement::deferred(h,
      "SELECT dedup_window_seconds, retention_seconds, completed_retention_seconds FROM queues WHERE name = ?1");
  // The probe: sidecar rows past the watermark and inside the window, in
  // offset order, each matched against the incoming hashes by qdt_match.
  probe = Statement::deferred(h,
      "SELECT base_offset, qdt_match(hashes, ?4) FROM log_txns "
      "WHERE partition_id = ?1 AND end_offset > ?2 AND created_at_ms >= ?3 ORDER BY end_offset");
  probe_queue = Statement::deferred(h,
      "SELECT base_offset, qdt_match(hashes, ?4) FROM log_txns "
      "WHERE partition_id IN (SELECT p.partition_id FROM partitions p WHERE p.queue_id = "
      "(SELECT queue_id FROM partitions WHERE partition_id = ?1)) "
      "AND (partition_id != ?1 OR end_offset > ?2) AND created_at_ms >= ?3 ORDER BY end_offset");
  // ?3: the last_offset the transaction read under the same lock (see Storage::write_segment).
  allocate = Statement::deferred(h,
      "UPDATE partitions SET last_offset = last_offset + ?2 WHERE partition_id = ?1 AND last_offset = ?3");
  insert_segment = Statement::deferred(h,
      "INSERT INTO segments (partition_id, end_offset, base_offset, created_at_ms, frames) VALUES (?1, ?2, ?3, ?4, ?5)");
  insert_sidecar = Statement::deferred(h,
      "INSERT INTO log_txns (partition_id, end_offset, base_offset, created_at_ms, hashes) VALUES (?1, ?2, ?3, ?4, ?5)");
  covering = Statement::deferred(h,
      "SELECT base_offset, end_offset, created_at_ms, frames FROM segments "
      "WHERE partition_id = ?1 AND end_offset >= ?2 ORDER BY end_offset LIMIT 1");
  read_segments = Statement::deferred(h,
      "SELECT base_offset, frames FROM segments WHERE partition_id = ?1 AND end_offset >= ?2 ORDER BY end_offset");
  list_partitions = Statement::deferred(h,
      "SELECT q.name, p.name FROM queues q JOIN partitions p ON p.queue_id = q.queue_id ORDER BY q.name, p.name");
  list_queue_partitions = Statement::deferred(h,
      "SELECT q.name, p.name FROM queues q JOIN partitions p ON p.queue_id = q.queue_id WHERE q.name = ?1 "
      "ORDER BY p.name");
  // Expired by age (?2 = cutoff, 0 disables) or completed and older than the
  // completed cutoff (?3, 0 disables): at or below every consumer group's
  // committed offset (docs/semantics.md §2.8, §9.4; no group, nothing completed).
  expired_segments = Statement::deferred(h,
      "SELECT s.base_offset, s.end_offset, s.created_at_ms FROM segments s WHERE s.partition_id = ?1 AND ("
      " (?4 > 0 AND s.created_at_ms < ?2) OR"
      " (?5 > 0 AND s.created_at_ms < ?3 AND s.end_offset <= (SELECT min(c.committed) FROM consumers c"
      "   WHERE c.partition_id = s.partition_id))) ORDER BY s.end_offset");
  delete_segment_row = Statement::deferred(h, "DELETE FROM segments WHERE partition_id = ?1 AND end_offset = ?2");
  purge_select = Statement::deferred(h,
      "SELECT base_offset, end_offset, created_at_ms FROM log_txns WHERE partition_id = ?1 AND created_at_ms < ?2 "
      "ORDER BY end_offset LIMIT ?3");
  purge_delete = Statement::deferred(h, "DELETE FROM log_txns WHERE partition_id = ?1 AND end_offset = ?2");
  update_txns_start = Statement::deferred(h,
      "UPDATE partitions SET txns_start = coalesce((SELECT min(base_offset) FROM log_txns WHERE partition_id = ?1), "
      "last_offset + 1) WHERE partition_id = ?1 RETURNING txns_start");
  read_sidecar = Statement::deferred(h,
      "SELECT base_offset, end_offset, created_at_ms, hashes FROM log_txns "
      "WHERE partition_id = ?1 AND end_offset > ?2 AND created_at_ms >= ?3 ORDER BY end_offset");
  read_committed = Statement::deferred(h,
      "SELECT committed FROM consumers WHERE partition_id = ?1 AND consumer_group = ?2");
  write_committed = Statement::deferred(h,
      "INSERT INTO consumers (partition_id, consumer_group, committed) VALUES (?1, ?2, ?3) "
      "ON CONFLICT DO UPDATE SET committed = excluded.committed");
  // Every offset holding the key, ascending: a segment's keys are distinct,
  // so a row holds it at most once.
  ack_probe = Statement::deferred(h,
      "SELECT base_offset, qdt_match(hashes, ?2) AS m FROM log_txns WHERE partition_id = ?1 AND m IS NOT NULL "
      "ORDER BY end_offset");
  stored_count = Statement::deferred(h,
      "SELECT coalesce(sum(end_offset - base_offset + 1), 0) FROM segments WHERE partition_id = ?1");
  sidecar_count = Statement::deferred(h, "SELECT count(*) FROM log_txns");
  segment_count = Statement::deferred(h, "SELECT count(*) FROM segments");
  delete_sidecar_row = Statement::deferred(h, "DELETE FROM log_txns WHERE partition_id = ?1 AND end_offset = ?2");
  const char* clears[kTables] = {"DELETE FROM consumers", "DELETE FROM log_txns", "DELETE FROM segments",
                                 "DELETE FROM partitions", "DELETE FROM queues"};
  for (size_t i = 0; i < kTables; ++i) clear_table[i] = Statement::deferred(h, clears[i]);
  partition_rows = Statement::deferred(h,
      "SELECT p.last_offset, p.txns_start, (SELECT count(*) FROM segments s WHERE s.partition_id = p.partition_id), "
      "(SELECT count(*) FROM log_txns t WHERE t.partition_id = p.partition_id) FROM partitions p "
      "JOIN queues q ON q.queue_id = p.queue_id WHERE q.name = ?1 AND p.name = ?2");
}

}  // namespace qdt::impl
