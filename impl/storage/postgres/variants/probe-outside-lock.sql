-- Design variant probe-outside-lock (docs/variants.md): the partition row is
-- read without FOR UPDATE, so the probe runs before any lock and the
-- allocator's UPDATE takes the row lock only afterwards. Two pushes of one
-- key both probe an empty window, then queue one after the other.
CREATE OR REPLACE FUNCTION queen.qdt_lock_partition(p_pid uuid, OUT r_last bigint, OUT r_txns_start bigint,
                                                    OUT r_now timestamptz, OUT r_window int)
LANGUAGE plpgsql
AS $$
BEGIN
    SELECT p.last_offset, p.txns_start INTO r_last, r_txns_start
    FROM queen.log_partitions p WHERE p.id = p_pid;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'QPUSH no partition %', p_pid;
    END IF;
    r_now := clock_timestamp();
    SELECT q.dedup_window_seconds INTO r_window
    FROM queen.queues q JOIN queen.log_partitions p ON p.queue_id = q.id WHERE p.id = p_pid
    FOR SHARE OF q;
END;
$$;
