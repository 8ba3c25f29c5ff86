-- Ack by transactionId (docs/semantics.md §2.9, §9.4): hashes resolve to offsets
-- through the sidecar. The consumer row must exist; its lock serializes the
-- group's acks and stays out of the push serializer's way. A non-empty
-- p_worker asks for a lease check: qdt grants no leases, so it is refused;
-- a producer-side ack passes ''. Acks commit cumulatively: committed moves
-- to the largest offset the completed hashes resolve to above it, each
-- hash resolving to its smallest offset above committed. Answer:
-- {ok, acked, off, noopHashes, staleHashes, unresolvedHashes}, hashes as 32
-- hex digits; noop: held only at or below committed.
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
    v_new bigint;
    v_noop jsonb;
    v_stale jsonb;
    v_unresolved jsonb;
BEGIN
    IF p_statuses IS NOT NULL AND array_length(p_statuses, 1) IS DISTINCT FROM array_length(p_hashes, 1) THEN
        RAISE EXCEPTION 'QACK % statuses for % hashes', array_length(p_statuses, 1), array_length(p_hashes, 1);
    END IF;
    SELECT c.committed INTO v_committed FROM queen.log_consumers c
    WHERE c.partition_id = p_pid AND c.consumer_group = p_consumer_group
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('ok', false, 'error', 'consumer not found');
    END IF;
    IF coalesce(p_worker, '') <> '' THEN
        RETURN jsonb_build_object('ok', false, 'error', 'invalid or expired lease');
    END IF;
    WITH input AS (
        SELECT h.hash, h.ord, coalesce(nullif(p_statuses[h.ord], ''), 'completed') AS status
        FROM unnest(p_hashes) WITH ORDINALITY AS h(hash, ord)
    ), resolved AS (
        SELECT i.ord, i.hash, i.status,
               min(t.base_offset + s.frame_index) FILTER (WHERE t.base_offset + s.frame_index > v_committed) AS above,
               coalesce(bool_or(t.base_offset + s.frame_index <= v_committed), false) AS below
        FROM input i
        LEFT JOIN queen.log_txns t ON t.partition_id = p_pid
        LEFT JOIN LATERAL queen.qdt_hashes(t.hashes) AS s ON s.hash = i.hash
        GROUP BY i.ord, i.hash, i.status
    )
    SELECT greatest(v_committed, max(r.above) FILTER (WHERE r.status IN ('completed', 'success', 'acked', 'ok'))),
           coalesce(jsonb_agg(encode(r.hash, 'hex') ORDER BY r.ord)
                    FILTER (WHERE r.above IS NULL AND r.below AND r.status IN ('completed', 'success', 'acked', 'ok')),
                    '[]'::jsonb),
           coalesce(jsonb_agg(encode(r.hash, 'hex') ORDER BY r.ord)
                    FILTER (WHERE r.above IS NULL AND r.below AND r.status IN ('failed', 'dlq', 'retry')), '[]'::jsonb),
           coalesce(jsonb_agg(encode(r.hash, 'hex') ORDER BY r.ord) FILTER (WHERE r.above IS NULL AND NOT r.below),
                    '[]'::jsonb)
    INTO v_new, v_noop, v_stale, v_unresolved
    FROM resolved r;
    v_new := coalesce(v_new, v_committed);
    IF v_new > v_committed THEN
        UPDATE queen.log_consumers SET committed = v_new
        WHERE partition_id = p_pid AND consumer_group = p_consumer_group;
    END IF;
    RETURN jsonb_build_object('ok', true, 'acked', v_new - v_committed, 'off', v_new, 'noopHashes', v_noop,
                              'staleHashes', v_stale, 'unresolvedHashes', v_unresolved);
END;
$$;
