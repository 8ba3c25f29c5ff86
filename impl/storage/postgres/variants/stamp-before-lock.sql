-- Design variant stamp-before-lock (docs/variants.md): the stamp is now(),
-- the transaction's start, read before the partition row's lock is granted.
-- A transaction that began before another but locks after it commits stamps
-- its offsets earlier than that commit's, so stamps no longer follow offsets
-- and the window's edge cuts a partition's history out of order.
CREATE OR REPLACE FUNCTION queen.qdt_lock_partition(p_pid uuid, OUT r_last bigint, OUT r_txns_start bigint,
                                                    OUT r_now timestamptz, OUT r_window int)
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM queen.qdt_partition_turn(p_pid);
    SELECT p.last_offset, p.txns_start INTO r_last, r_txns_start
    FROM queen.log_partitions p WHERE p.id = p_pid
    FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'QPUSH no partition %', p_pid;
    END IF;
    r_now := now();
    SELECT q.dedup_window_seconds INTO r_window
    FROM queen.queues q JOIN queen.log_partitions p ON p.queue_id = q.id WHERE p.id = p_pid;
END;
$$;
