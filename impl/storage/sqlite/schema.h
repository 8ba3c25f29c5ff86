#pragma once
// The storage schema (docs/semantics.md §2.4) and the prepared statements of one
// connection. Each connection prepares its own statements once; the hot path
// resets and rebinds them, never re-prepares.
#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "impl/hash.h"
#include "impl/storage/sqlite/sqlite.h"

namespace qdt::impl {

// Creates the tables when missing (every connection runs it; the first wins).
void create_schema(Database& db, int64_t page_size_bytes = 0);

// Counts the sidecar rows the probe function looked at (rows_scanned).
struct ProbeCounter {
  uint64_t rows = 0;
};

// Registers qdt_match(row_hashes, incoming) on `db`, counting into `counter`:
// NULL when no incoming hash occurs in the sidecar row; otherwise a blob of
// u32 pairs (incoming frame index, position in the row), one pair per matched
// incoming index, for its first position.
// kind bloom (variant bloom-filter): membership through a 16-bit Bloom filter
// of the row's hashes (two bits per hash); a match names the row's first
// position, since a filter cannot say which frame matched.
enum class MatchKind { exact, bloom };
void register_match_function(Database& db, ProbeCounter& counter, MatchKind kind = MatchKind::exact);

// Little-endian u32 of a qdt_match result pair.
uint32_t match_u32(const char* p);

struct Statements {
  explicit Statements(sqlite3* h);
  Statement find_partition, insert_queue, insert_partition, upsert_options, select_options;
  Statement probe, probe_queue, allocate, insert_segment, insert_sidecar, covering;
  Statement read_segments, list_partitions, list_queue_partitions;
  Statement expired_segments, delete_segment_row, delete_sidecar_row, purge_select, purge_delete, update_txns_start;
  Statement read_sidecar;
  Statement read_committed, write_committed, ack_probe, stored_count, sidecar_count, segment_count, partition_rows;
  // One DELETE per table, children first (Storage::clear_rows).
  static constexpr size_t kTables = 5;
  Statement clear_table[kTables];
};

}  // namespace qdt::impl
