-- Ack by transactionId (docs/semantics.md §2.9): hashes resolve to offsets through the
-- sidecar. The consumer row must exist; its lock serializes the group's acks
-- and stays out of the push serializer's way.
CREATE OR REPLACE FUNCTION queen.log_ack_by_hash_v1(
    p_pid uuid,
    p_consumer_group text,
    p_worker text,
    p_hashes bytea[],
    p_statuses text[]
) RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_committed bigint;
    v_log_start bigint;
    v_resolved jsonb;
    v_unresolved jsonb;
    v_acked int;
    v_rows jsonb;
BEGIN
    SELECT c.committed INTO v_committed FROM queen.log_consumers c
    WHERE c.partition_id = p_pid AND c.consumer_group = p_consumer_group
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('ok', false, 'error', 'consumer not found');
    END IF;
    IF p_statuses IS NOT NULL AND array_length(p_statuses, 1) IS DISTINCT FROM array_length(p_hashes, 1) THEN
        RAISE EXCEPTION 'QACK % statuses for % hashes', array_length(p_statuses, 1), array_length(p_hashes, 1);
    END IF;
    SELECT coalesce(jsonb_agg(jsonb_build_object('i', r.frame_index, 'off', r.acked_offset, 'completed', r.completed)
                              ORDER BY r.frame_index), '[]'::jsonb)
    INTO v_rows
    FROM (
        SELECT h.ord::int - 1 AS frame_index,
               (SELECT min(t.base_offset + s.frame_index)
                FROM queen.log_txns t CROSS JOIN LATERAL queen.qdt_hashes(t.hashes) AS s
                WHERE t.partition_id = p_pid AND s.hash = h.hash) AS acked_offset,
               coalesce(p_statuses[h.ord], 'completed') = 'completed' AS completed
        FROM unnest(p_hashes) WITH ORDINALITY AS h(hash, ord)
    ) r;
    INSERT INTO queen.qdt_acked (partition_id, consumer_group, acked_offset)
    SELECT p_pid, p_consumer_group, (e->>'off')::bigint FROM jsonb_array_elements(v_rows) AS e
    WHERE e->'off' <> 'null'::jsonb AND (e->>'completed')::boolean
    ON CONFLICT DO NOTHING;
    -- committed advances over the contiguous acknowledged run; offsets below
    -- log_start are gone and count as done.
    SELECT p.log_start INTO v_log_start FROM queen.log_partitions p WHERE p.id = p_pid;
    v_committed := greatest(v_committed, coalesce(v_log_start, 0) - 1);
    WHILE EXISTS (SELECT 1 FROM queen.qdt_acked a WHERE a.partition_id = p_pid
                  AND a.consumer_group = p_consumer_group AND a.acked_offset = v_committed + 1) LOOP
        v_committed := v_committed + 1;
    END LOOP;
    UPDATE queen.log_consumers SET committed = v_committed
    WHERE partition_id = p_pid AND consumer_group = p_consumer_group;
    SELECT coalesce(jsonb_agg(jsonb_build_object('i', e->'i', 'off', e->'off')) FILTER (WHERE e->'off' <> 'null'::jsonb),
                    '[]'::jsonb),
           coalesce(jsonb_agg(e->'i') FILTER (WHERE e->'off' = 'null'::jsonb), '[]'::jsonb),
           count(*) FILTER (WHERE e->'off' <> 'null'::jsonb AND (e->>'completed')::boolean)
    INTO v_resolved, v_unresolved, v_acked
    FROM jsonb_array_elements(v_rows) AS e;
    RETURN jsonb_build_object('ok', true, 'acked', v_acked, 'resolved', v_resolved,
                              'unresolvedHashes', v_unresolved, 'committed', v_committed);
END;
$$;
