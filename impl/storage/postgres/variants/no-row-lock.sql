-- Design variant no-row-lock (docs/variants.md): the push takes no row lock
-- for its probe. The partition row is read without FOR UPDATE, `now` and the
-- probe run unserialized, and only the allocator (its partition's turn, then
-- its UPDATE), later in the same transaction, waits for another push of the
-- partition to commit. Two
-- pushes of one key both probe before either allocates, and both queue.
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
    FROM queen.queues q JOIN queen.log_partitions p ON p.queue_id = q.id WHERE p.id = p_pid;
END;
$$;
