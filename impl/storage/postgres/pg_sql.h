#pragma once
// The statements the queen-log-v1 adapter sends (docs/semantics.md §9.3): calls of the
// interface's functions, qdt's own reads, and plain reads of the interface's
// tables for inspection and for foreign implementations. Times cross as
// Unix microseconds, names sort byte-wise (COLLATE "C", as SQLite does).
#include <string>

namespace qdt::impl::postgres::sql {

#define QDT_PG_US(x) "(extract(epoch FROM " x ") * 1000000)::bigint"
#define QDT_PG_TS(p) "(pg_catalog.to_timestamp(0) + " p "::bigint * interval '1 microsecond')"
#define QDT_PG_TENANT "'00000000-0000-0000-0000-000000000001'::uuid"

#define QDT_PG_FIND_PARTITION_COLUMNS                                                          \
  "SELECT p.id, p.last_offset, p.txns_start, q.dedup_window_seconds, q.retention_seconds, " \
  "q.completed_retention_seconds FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id "
#define QDT_PG_FIND_PARTITION_WHERE "WHERE q.tenant_id = " QDT_PG_TENANT " AND q.name = $1 AND p.name = $2"
// The advisory key of a partition's turn (queen.qdt_partition_turn in
// sql/procedures/001_log_schema.sql computes the same): taken before the
// row's lock, whose waiters the server would wake all at once.
#define QDT_PG_TURN_KEY(id) "hashtextextended('qdt-partition:' || " id "::text, 0)"
// The turn joins laterally on both tables, so it is taken for the matching
// partition only, before the row lock at the top of the plan.
#define QDT_PG_FIND_PARTITION_TAKING(lock_function, row_lock)                                      \
  QDT_PG_FIND_PARTITION_COLUMNS "CROSS JOIN LATERAL (SELECT " lock_function "(" QDT_PG_TURN_KEY("p.id") \
                                ") WHERE q.id = p.queue_id) turn " QDT_PG_FIND_PARTITION_WHERE " " row_lock
inline constexpr const char* kFindPartition = QDT_PG_FIND_PARTITION_COLUMNS QDT_PG_FIND_PARTITION_WHERE;
// A read holds its partition's turn shared and the row in share mode until
// it commits: a push cannot commit between the read's statements, so the
// read answers as of its commit, where the history places it.
inline constexpr const char* kFindPartitionShared =
    QDT_PG_FIND_PARTITION_TAKING("pg_advisory_xact_lock_shared", "FOR SHARE OF p");
// A writer beside the push path (an ack, an operator's segment delete) takes
// the push's serializer: the turn, then the row.
inline constexpr const char* kFindPartitionLocked =
    QDT_PG_FIND_PARTITION_TAKING("pg_advisory_xact_lock", "FOR UPDATE OF p");
// The line's session-level lock (queen.qdt_line_enter in
// sql/procedures/001_log_schema.sql takes the same): a statement taking
// several turns enters it first and leaves once it holds them all.
#define QDT_PG_LINE_KEY "hashtextextended('qdt-line', 0)"
// Releases the line if a failed statement left it held. Only when held: an
// unlock of a lock the session does not hold is a server WARNING ("you don't
// own a lock of type ExclusiveLock"). A bigint key shows in pg_locks as
// classid (high 32 bits), objid (low 32 bits) and objsubid 1.
inline constexpr const char* kLeaveLine =
    "SELECT pg_catalog.pg_advisory_unlock(line.k) FROM (SELECT " QDT_PG_LINE_KEY " AS k) line "
    "WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_locks l WHERE l.locktype = 'advisory' AND l.granted "
    "AND l.pid = pg_catalog.pg_backend_pid() AND l.objsubid = 1 "
    "AND l.classid::text::bigint = (line.k >> 32) & 4294967295 AND l.objid::text::bigint = line.k & 4294967295)";
// A configure takes several turns in two statements, so it enters the line
// in the first, then takes the turn qdt_resolve_partition takes before it
// creates a queue's rows, before it reads the options it will rewrite. The
// subquery (never flattened past OFFSET 0) enters the line first.
inline constexpr const char* kQueueCreationTurn =
    "SELECT pg_advisory_xact_lock(hashtextextended(" QDT_PG_TENANT "::text || ':' || $1, 0)) "
    "FROM (SELECT pg_advisory_lock(" QDT_PG_LINE_KEY ") OFFSET 0) line";
// Then the turns of the queue's partitions, in ascending id (the order
// bundles take them), and it leaves the line; no partition of the queue can
// be created meanwhile. The aggregate takes every turn before the leave.
inline constexpr const char* kQueuePartitionTurns =
    "SELECT pg_advisory_unlock(" QDT_PG_LINE_KEY ") FROM (SELECT count(pg_advisory_xact_lock(" QDT_PG_TURN_KEY("s.id")
    ")) FROM (SELECT p.id FROM queen.log_partitions p "
    "JOIN queen.queues q ON q.id = p.queue_id WHERE q.tenant_id = " QDT_PG_TENANT " AND q.name = $1 "
    "ORDER BY p.id OFFSET 0) s OFFSET 0) turns";
inline constexpr const char* kSelectOptions =
    "SELECT dedup_window_seconds, retention_seconds, completed_retention_seconds FROM queen.queues "
    "WHERE tenant_id = " QDT_PG_TENANT " AND name = $1";
// The upsert (the id is the one qdt's own SQL derives from the name, so it
// does not depend on which client created the queue first), and in the same
// statement every partition row of the queue in ascending id, so a push that read the window under its row lock commits
// before the window changes or reads the new one. A partition being created
// meanwhile is not among them, but its creator holds the queue's creation
// turn, which the configure took first. (Holding the queue row in share mode
// in every push instead would make a configure and the pushes queued on a
// partition row wait on one transaction for different rows and wake
// together: which went first would be chance.)
inline constexpr const char* kUpsertOptionsLockingPartitions =
    "WITH up AS (INSERT INTO queen.queues (id, tenant_id, name, dedup_window_seconds, retention_seconds, "
    "completed_retention_seconds, retention_enabled) "
    "VALUES (md5('q' || " QDT_PG_TENANT "::text || ':' || octet_length($1)::text || ':' || $1)::uuid, " QDT_PG_TENANT
    ", $1, $2::int, $3::int, $4::int, $3::int > 0 OR $4::int > 0) "
    "ON CONFLICT (tenant_id, name) DO UPDATE SET dedup_window_seconds = excluded.dedup_window_seconds, "
    "retention_seconds = excluded.retention_seconds, "
    "completed_retention_seconds = excluded.completed_retention_seconds, "
    "retention_enabled = excluded.retention_enabled RETURNING id) "
    "SELECT 1 FROM queen.log_partitions p WHERE p.queue_id IN (SELECT id FROM up) ORDER BY p.id FOR UPDATE OF p";
inline constexpr const char* kPushGuarded =
    "SELECT queen.log_push_one_v1($1, $2, $3::int, $4::bytea, $5::bigint, $6::bytea, p_window_assumed => $7::int)";
inline constexpr const char* kPushPlain =
    "SELECT queen.log_push_one_v1($1, $2, $3::int, $4::bytea, $5::bigint, $6::bytea)";
inline constexpr const char* kCheckedProbe =
    "SELECT queen.qdt_probe_v1($1::uuid, $2::bigint, $3::bytea, $4::int, " QDT_PG_TS("$5") ", $6::bigint)";
// Variant probe-outside-lock's probe, in a transaction of its own (variants/probe-outside-lock.sql).
inline constexpr const char* kProbeOutsideLock =
    "SELECT queen.qdt_probe_outside_lock_v1($1, $2, $3::bytea, $4::bigint, $5::int)";

inline constexpr const char* kSegmentAt =
    "SELECT r_base, r_end, " QDT_PG_US("r_created") ", r_blob FROM queen.log_segment_at_v1($1::uuid, $2::bigint)";
inline constexpr const char* kReadTxns =
    "SELECT r_base, r_end, " QDT_PG_US("r_created") ", r_hashes, r_last_offset "
    "FROM queen.qdt_read_txns_v1($1::uuid, $2::bigint, " QDT_PG_TS("$3") ")";
inline constexpr const char* kReadTxnsTables =
    "SELECT t.base_offset, t.end_offset, " QDT_PG_US("t.created_at") ", t.hashes, p.last_offset "
    "FROM queen.log_partitions p LEFT JOIN queen.log_txns t ON t.partition_id = p.id AND t.end_offset > $2::bigint "
    "AND t.created_at >= " QDT_PG_TS("$3") " WHERE p.id = $1::uuid ORDER BY t.base_offset";
inline constexpr const char* kReadSegments =
    "SELECT r_base, r_blob FROM queen.qdt_read_segments_v1($1::uuid, $2::bigint, $3::int)";
inline constexpr const char* kReadSegmentsTables =
    "SELECT base_offset, blob FROM queen.log_segments WHERE partition_id = $1::uuid AND end_offset >= $2::bigint "
    "ORDER BY base_offset LIMIT $3::int";

inline constexpr const char* kEnsureConsumer =
    "INSERT INTO queen.log_consumers (partition_id, consumer_group) VALUES ($1::uuid, $2) "
    "ON CONFLICT DO NOTHING RETURNING true";
inline constexpr const char* kDropConsumer =
    "DELETE FROM queen.log_consumers WHERE partition_id = $1::uuid AND consumer_group = $2";
// A producer's ack holds no lease: worker '' (docs/semantics.md §9.4).
inline constexpr const char* kAck =
    "SELECT queen.log_ack_by_hash_v1($1::uuid, $2, '', ARRAY[$3::bytea], NULL::text[])";
// The key's smallest offset with a sidecar row: the interface's answer names
// no offset, so the adapter reads the table (§9.3) in the ack's transaction.
inline constexpr const char* kSmallestHeldOffset =
    "SELECT min(t.base_offset + k) FROM queen.log_txns t "
    "CROSS JOIN LATERAL generate_series(0, octet_length(t.hashes) / 16 - 1) AS k "
    "WHERE t.partition_id = $1::uuid AND substring(t.hashes FROM k * 16 + 1 FOR 16) = $2::bytea";

inline constexpr const char* kListPartitions =
    "SELECT q.name, p.name FROM queen.queues q JOIN queen.log_partitions p ON p.queue_id = q.id "
    "ORDER BY q.name COLLATE \"C\", p.name COLLATE \"C\"";
inline constexpr const char* kListQueuePartitions =
    "SELECT q.name, p.name FROM queen.queues q JOIN queen.log_partitions p ON p.queue_id = q.id "
    "WHERE q.name = $1 ORDER BY p.name COLLATE \"C\"";
inline constexpr const char* kRetentionStep =
    "SELECT queen.log_retention_step_v1($1::uuid, " QDT_PG_TS("$2") ", " QDT_PG_TS("$3") ", $4::int)";
inline constexpr const char* kPurgeStep =
    "SELECT queen.log_txns_purge_step_v1($1::uuid, " QDT_PG_TS("$2") ", $3::int)";
inline constexpr const char* kDeleteSidecarRows =
    "DELETE FROM queen.log_txns WHERE partition_id = $1::uuid AND end_offset = ANY($2::bigint[])";
inline constexpr const char* kDeleteSegment =
    "DELETE FROM queen.log_segments WHERE partition_id = $1::uuid AND base_offset = $2::bigint";
inline constexpr const char* kSegmentSpans =
    "SELECT base_offset, end_offset, " QDT_PG_US("created_at") " FROM queen.log_segments "
    "WHERE partition_id = $1::uuid ORDER BY base_offset";
inline constexpr const char* kSidecarSpans =
    "SELECT base_offset, end_offset, " QDT_PG_US("created_at") " FROM queen.log_txns "
    "WHERE partition_id = $1::uuid ORDER BY base_offset";

inline constexpr const char* kPartitionRows =
    "SELECT p.last_offset, p.txns_start, "
    "(SELECT count(*) FROM queen.log_segments s WHERE s.partition_id = p.id), "
    "(SELECT count(*) FROM queen.log_txns t WHERE t.partition_id = p.id) "
    "FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND p.name = $2";
inline constexpr const char* kStoredMessages =
    "SELECT coalesce(sum(s.end_offset - s.base_offset + 1), 0) FROM queen.log_segments s "
    "JOIN queen.log_partitions p ON p.id = s.partition_id JOIN queen.queues q ON q.id = p.queue_id "
    "WHERE q.name = $1 AND p.name = $2";
inline constexpr const char* kSidecarCount = "SELECT count(*) FROM queen.log_txns";
inline constexpr const char* kSegmentCount = "SELECT count(*) FROM queen.log_segments";

// Whether a statement may read the virtual clock table under qdt's own SQL
// and its variants: only the push functions (qdt_lock_partition and
// qdt_push_segment read clock_timestamp()) and variant probe-outside-lock's
// probe do; now() inside a transaction reads qdt.txn_start_us instead.
// sql_loader_test checks which of the own functions name a clock.
inline bool own_sql_may_read_clock(const std::string& statement) {
  for (const char* reader : {"queen.log_push_one_v1(", "queen.log_push_multi_v1(", "queen.qdt_probe_outside_lock_v1("}) {
    if (statement.find(reader) != std::string::npos) return true;
  }
  return false;
}

#undef QDT_PG_US
#undef QDT_PG_TS
#undef QDT_PG_TENANT
#undef QDT_PG_TURN_KEY
#undef QDT_PG_FIND_PARTITION_COLUMNS
#undef QDT_PG_FIND_PARTITION_WHERE
#undef QDT_PG_FIND_PARTITION_TAKING

}  // namespace qdt::impl::postgres::sql
