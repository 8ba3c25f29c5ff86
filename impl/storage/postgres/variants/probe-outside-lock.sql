-- Design variant probe-outside-lock (docs/variants.md), as on SQLite: the
-- adapter runs this probe in a transaction of its own, which takes no lock,
-- and allocates in a later push transaction under the partition row's lock
-- with a watermark past every offset, so that one probes nothing. A push of
-- the same key can commit in between: both probe an empty window, then
-- queue one after the other. The watermark rule is the reference's.
CREATE OR REPLACE FUNCTION queen.qdt_probe_outside_lock_v1(p_queue text, p_partition text, p_hashes bytea,
                                                           p_verified bigint, p_window_assumed int)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_pid uuid;
    v_last bigint;
    v_txns_start bigint;
    v_window int;
    v_now timestamptz := clock_timestamp();
    v_from bigint;
    v_probe jsonb;
BEGIN
    SELECT p.id, p.last_offset, p.txns_start, q.dedup_window_seconds
    INTO v_pid, v_last, v_txns_start, v_window
    FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id
    WHERE q.tenant_id = '00000000-0000-0000-0000-000000000001' AND q.name = p_queue AND p.name = p_partition;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('dups', NULL, 'qdtProbeRan', false, 'qdtRowsScanned', 0);
    END IF;
    v_from := v_txns_start - 1;
    IF p_window_assumed IS NOT NULL AND p_window_assumed >= v_window THEN
        v_from := greatest(coalesce(p_verified, -1), v_from);
    END IF;
    IF v_window > 0 AND v_last > v_from THEN
        v_probe := queen.qdt_probe_v1(v_pid, v_from, p_hashes, v_window, v_now, v_last);
    END IF;
    RETURN jsonb_build_object('dups', coalesce(v_probe->'dups', 'null'::jsonb))
           || queen.qdt_push_extras(v_pid, v_now, v_window, v_last, v_txns_start, v_probe IS NOT NULL,
                                    coalesce((v_probe->>'rows')::bigint, 0));
END;
$$;
