-- The sidecar purge and segment retention (docs/semantics.md §2.8): bounded steps, each
-- under the partition row's lock, so a push never sees half a step.

-- Deletes whole sidecar rows older than p_cutoff from txns_start on, at most
-- p_max_rows, and moves txns_start to the first offset still in the sidecar.
-- qdtDeleted lists the rows removed ([base, end, created_at in Unix us]):
-- the history records them, and the interface's count cannot say which.
CREATE OR REPLACE FUNCTION queen.log_txns_purge_step_v1(p_pid uuid, p_cutoff timestamptz, p_max_rows int)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_txns_start bigint;
    v_last bigint;
    v_deleted int;
    v_spans jsonb;
BEGIN
    PERFORM queen.qdt_partition_turn(p_pid);
    SELECT p.txns_start, p.last_offset INTO v_txns_start, v_last
    FROM queen.log_partitions p WHERE p.id = p_pid
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('deleted', 0, 'new_txns_start', NULL, 'done', true);
    END IF;
    WITH doomed AS (
        SELECT t.base_offset FROM queen.log_txns t
        WHERE t.partition_id = p_pid AND t.base_offset >= v_txns_start AND t.created_at < p_cutoff
        ORDER BY t.base_offset
        LIMIT greatest(p_max_rows, 0)
    )
    , gone AS (
        DELETE FROM queen.log_txns t USING doomed
        WHERE t.partition_id = p_pid AND t.base_offset = doomed.base_offset
        RETURNING t.base_offset, t.end_offset, t.created_at
    )
    SELECT count(*), coalesce(jsonb_agg(jsonb_build_array(g.base_offset, g.end_offset,
                                        (extract(epoch FROM g.created_at) * 1000000)::bigint) ORDER BY g.base_offset),
                              '[]'::jsonb)
    INTO v_deleted, v_spans FROM gone g;
    SELECT coalesce(min(t.base_offset), v_last + 1) INTO v_txns_start
    FROM queen.log_txns t WHERE t.partition_id = p_pid;
    UPDATE queen.log_partitions SET txns_start = v_txns_start WHERE id = p_pid;
    RETURN jsonb_build_object('deleted', v_deleted, 'new_txns_start', v_txns_start, 'done', v_deleted < p_max_rows,
                              'qdtDeleted', v_spans);
END;
$$;

-- Deletes whole segments from log_start on that are older than
-- p_all_cutoff, or older than p_completed_cutoff and completed: at or below
-- every consumer group's committed offset (none: nothing is completed). A
-- NULL cutoff turns its rule off. The sidecar stays: it outlives its
-- segments.
CREATE OR REPLACE FUNCTION queen.log_retention_step_v1(p_pid uuid, p_all_cutoff timestamptz,
                                                       p_completed_cutoff timestamptz, p_max_rows int,
                                                       p_history_type text DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_log_start bigint;
    v_last bigint;
    v_deleted int;
    v_spans jsonb;
BEGIN
    PERFORM queen.qdt_partition_turn(p_pid);
    SELECT p.log_start, p.last_offset INTO v_log_start, v_last
    FROM queen.log_partitions p WHERE p.id = p_pid
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('deleted', 0, 'new_log_start', NULL, 'done', true);
    END IF;
    WITH doomed AS (
        SELECT s.base_offset FROM queen.log_segments s
        WHERE s.partition_id = p_pid AND s.base_offset >= v_log_start
          AND ((p_all_cutoff IS NOT NULL AND s.created_at < p_all_cutoff)
               OR (p_completed_cutoff IS NOT NULL AND s.created_at < p_completed_cutoff
                   AND s.end_offset <= (SELECT min(c.committed) FROM queen.log_consumers c
                                        WHERE c.partition_id = p_pid)))
        ORDER BY s.base_offset
        LIMIT greatest(p_max_rows, 0)
    )
    , gone AS (
        DELETE FROM queen.log_segments s USING doomed
        WHERE s.partition_id = p_pid AND s.base_offset = doomed.base_offset
        RETURNING s.base_offset, s.end_offset, s.created_at
    )
    SELECT count(*), coalesce(jsonb_agg(jsonb_build_array(g.base_offset, g.end_offset,
                                        (extract(epoch FROM g.created_at) * 1000000)::bigint) ORDER BY g.base_offset),
                              '[]'::jsonb)
    INTO v_deleted, v_spans FROM gone g;
    SELECT coalesce(min(s.base_offset), v_last + 1) INTO v_log_start
    FROM queen.log_segments s WHERE s.partition_id = p_pid;
    UPDATE queen.log_partitions SET log_start = v_log_start WHERE id = p_pid;
    RETURN jsonb_build_object('deleted', v_deleted, 'new_log_start', v_log_start, 'done', v_deleted < p_max_rows,
                              'qdtDeleted', v_spans);
END;
$$;
