-- The push transaction of queen-log-v1 (docs/semantics.md §2.4, 2.7, 2.11, 9.3), the
-- covering fetch (docs/semantics.md §2.6) and qdt's read paths (docs/semantics.md §2.10, 2.11).

-- The probe (docs/semantics.md §2.4, 2.7): per incoming frame, the smallest
-- offset holding an equal hash among the sidecar rows above p_from, at or
-- below p_upto, not older than the window. {"dups": [{"i","off"}] or null,
-- "rows": sidecar rows examined}. Variants replace this function alone.
-- PL/pgSQL only to keep the query's plan across calls: a SQL function that
-- cannot be inlined is planned again at every call. The generic plan is
-- forced: against the custom plans' row counts for constant arguments it
-- would never be chosen, and planning again is most of the probe's cost.
CREATE OR REPLACE FUNCTION queen.qdt_probe_v1(p_pid uuid, p_from bigint, p_hashes bytea, p_window int,
                                              p_now timestamptz, p_upto bigint)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
    RETURN (WITH candidates AS (
        SELECT t.base_offset, t.hashes FROM queen.log_txns t
        WHERE t.partition_id = p_pid
          AND t.end_offset > p_from
          AND t.base_offset <= p_upto
          AND t.created_at >= p_now - p_window * interval '1 second'
    ), matches AS (
        SELECT incoming.frame_index, min(c.base_offset + stored.frame_index) AS original
        FROM candidates c
        CROSS JOIN LATERAL queen.qdt_hashes(c.hashes) AS stored
        JOIN queen.qdt_hashes(p_hashes) AS incoming ON incoming.hash = stored.hash
        GROUP BY incoming.frame_index
    )
    SELECT jsonb_build_object(
        'dups', (SELECT jsonb_agg(jsonb_build_object('i', m.frame_index, 'off', m.original) ORDER BY m.frame_index)
                 FROM matches m),
        'rows', (SELECT count(*) FROM candidates)));
END;
$$;

-- What qdt's own answers carry beyond the interface (docs/semantics.md §9.3): the
-- clock the push read, its window, the partition as it was, and the probe's work.
CREATE OR REPLACE FUNCTION queen.qdt_push_extras(p_pid uuid, p_now timestamptz, p_window int, p_last_before bigint,
                                                 p_txns_start bigint, p_probe_ran boolean, p_rows bigint)
RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT jsonb_build_object('qdtPid', p_pid, 'qdtNowUs',
                              (extract(epoch FROM p_now) * 1000000)::bigint,
                              'qdtWindow', p_window, 'qdtLastOffsetBefore', p_last_before,
                              'qdtTxnsStart', p_txns_start, 'qdtProbeRan', p_probe_ran, 'qdtRowsScanned', p_rows)
$$;

-- The partition row under the push's serializer, its FOR UPDATE, and `now`
-- read after the lock is granted, so stamps follow offsets. The lock design
-- variants (impl/storage/postgres/variants/) replace this function alone.
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
    r_now := clock_timestamp();
    -- A new statement, so a window changed while this push waited is seen.
    SELECT q.dedup_window_seconds INTO r_window
    FROM queen.queues q JOIN queen.log_partitions p ON p.queue_id = q.id WHERE p.id = p_pid;
END;
$$;

-- One segment into a partition whose id is resolved. With a window (or
-- none given: the queue's, read under the lock, since a configure takes the
-- queue's partition rows before it commits a new window) the partition row's
-- FOR UPDATE is the write serializer and `now` is read after it; with a
-- window of 0 given the allocator UPDATE takes the same lock first.
-- A watermark is trusted only when it was computed with at least the window
-- in force (the window guard): a widened window reaches rows nobody vouched for.
CREATE OR REPLACE FUNCTION queen.qdt_push_segment(p_pid uuid, p_window int, p_msg_count int, p_hashes bytea,
                                                  p_verified bigint, p_blob bytea, p_window_assumed int)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_last bigint;
    v_txns_start bigint;
    v_now timestamptz;
    v_watermark bigint := -1;
    v_from bigint;
    v_base bigint;
    v_last_before bigint;
    v_probe jsonb;
    v_probe_ran boolean := false;
    v_window int := p_window;
BEGIN
    IF p_msg_count IS NULL OR p_msg_count < 1
       OR coalesce(octet_length(p_hashes), -1) <> 16 * p_msg_count THEN
        RAISE EXCEPTION 'QPUSH a segment of % frames needs 16 bytes of hash per frame, got % bytes',
            p_msg_count, coalesce(octet_length(p_hashes), 0);
    END IF;
    IF p_window IS NULL OR p_window > 0 THEN
        SELECT l.r_last, l.r_txns_start, l.r_now, l.r_window INTO v_last, v_txns_start, v_now, v_window
        FROM queen.qdt_lock_partition(p_pid) l;
        v_window := coalesce(p_window, v_window);
        IF p_window_assumed IS NOT NULL AND p_window_assumed >= v_window THEN
            v_watermark := coalesce(p_verified, -1);
        END IF;
        v_from := greatest(v_watermark, v_txns_start - 1);
        v_last_before := v_last;
        IF v_window > 0 AND v_last > v_from THEN
            v_probe := queen.qdt_probe_v1(p_pid, v_from, p_hashes, v_window, v_now, v_last);
            v_probe_ran := true;
            IF v_probe->'dups' <> 'null'::jsonb THEN
                RETURN jsonb_build_object('status', 'duplicate', 'dups', v_probe->'dups')
                       || queen.qdt_push_extras(p_pid, v_now, v_window, v_last_before, v_txns_start, true,
                                                (v_probe->>'rows')::bigint);
            END IF;
        END IF;
        -- Held already unless a variant's lock took no turn: the allocators
        -- then still queue in order.
        PERFORM queen.qdt_partition_turn(p_pid);
        UPDATE queen.log_partitions SET last_offset = last_offset + p_msg_count
        WHERE id = p_pid
        RETURNING last_offset INTO v_last;
    ELSE
        PERFORM queen.qdt_partition_turn(p_pid);
        UPDATE queen.log_partitions SET last_offset = last_offset + p_msg_count
        WHERE id = p_pid
        RETURNING last_offset INTO v_last;
        IF v_last IS NULL THEN
            RAISE EXCEPTION 'QPUSH no partition %', p_pid;
        END IF;
        v_now := clock_timestamp();
        v_last_before := v_last - p_msg_count;
        SELECT p.txns_start INTO v_txns_start FROM queen.log_partitions p WHERE p.id = p_pid;
    END IF;
    v_base := v_last - p_msg_count + 1;
    INSERT INTO queen.log_segments (partition_id, base_offset, end_offset, created_at, blob)
    VALUES (p_pid, v_base, v_last, v_now, p_blob);
    -- Written with the window at 0 too: acks resolve through it.
    INSERT INTO queen.log_txns (partition_id, base_offset, end_offset, created_at, hashes)
    VALUES (p_pid, v_base, v_last, v_now, p_hashes);
    RETURN jsonb_build_object('status', 'queued', 'baseOffset', v_base,
                              'createdAt', to_char(v_now AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))
           || queen.qdt_push_extras(p_pid, v_now, v_window, v_last_before, v_txns_start, v_probe_ran,
                                     coalesce((v_probe->>'rows')::bigint, 0));
END;
$$;

-- p_window_assumed is qdt's own trailing parameter (docs/semantics.md §9.3): the window the
-- watermark p_verified was computed with; NULL (unknown) ignores the watermark.
CREATE OR REPLACE FUNCTION queen.log_push_one_v1(
    p_queue text,
    p_partition text,
    p_msg_count int,
    p_hashes bytea,
    p_verified bigint,
    p_blob bytea,
    p_pid uuid DEFAULT NULL,
    p_window int DEFAULT NULL,
    p_tenant uuid DEFAULT '00000000-0000-0000-0000-000000000001',
    p_window_assumed int DEFAULT NULL
) RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_pid uuid := p_pid;
    v_window int := p_window;
    v_resolved record;
BEGIN
    IF v_pid IS NULL THEN
        v_resolved := queen.qdt_resolve_partition(p_queue, p_partition, p_tenant);
        v_pid := v_resolved.r_pid;
    END IF;
    IF v_pid IS NULL THEN
        RAISE EXCEPTION 'QPUSH cannot resolve the partition';
    END IF;
    -- Without a window from the caller, the push reads the queue's under the row lock.
    RETURN queen.qdt_push_segment(v_pid, v_window, p_msg_count, p_hashes, p_verified, p_blob, p_window_assumed);
END;
$$;

-- Several partitions' segments in one transaction. Every target row is
-- locked (its turn first) before any write, in ascending partition id, so two bundles over
-- the same partitions cannot wait on each other in a cycle.
CREATE OR REPLACE FUNCTION queen.log_push_multi_v1(
    p_queues text[],
    p_partitions text[],
    p_msg_counts int[],
    p_hashes bytea[],
    p_verified int8[],
    p_blobs bytea[],
    p_tenants uuid[] DEFAULT NULL,
    p_windows_assumed int[] DEFAULT NULL
) RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_n int := coalesce(array_length(p_queues, 1), 0);
    v_tenants uuid[];
    v_rec record;
    v_results jsonb[];
BEGIN
    IF v_n = 0 THEN
        RETURN '[]'::jsonb;
    END IF;
    IF array_length(p_partitions, 1) IS DISTINCT FROM v_n OR array_length(p_msg_counts, 1) IS DISTINCT FROM v_n
       OR array_length(p_hashes, 1) IS DISTINCT FROM v_n OR array_length(p_verified, 1) IS DISTINCT FROM v_n
       OR array_length(p_blobs, 1) IS DISTINCT FROM v_n
       OR (p_windows_assumed IS NOT NULL AND array_length(p_windows_assumed, 1) IS DISTINCT FROM v_n) THEN
        RAISE EXCEPTION 'QMULTI the arrays are not aligned (% queues)', v_n;
    END IF;
    IF p_tenants IS NULL THEN
        v_tenants := array_fill('00000000-0000-0000-0000-000000000001'::uuid, ARRAY[v_n]);
    ELSIF array_length(p_tenants, 1) IS DISTINCT FROM v_n THEN
        RAISE EXCEPTION 'QMULTI the tenants are not aligned (% queues)', v_n;
    ELSE
        v_tenants := p_tenants;
    END IF;
    PERFORM queen.qdt_line_enter();
    -- Provisioning in one fixed order, so two bundles creating the same
    -- partitions wait on each other's inserts the same way every run.
    FOR v_rec IN
        SELECT DISTINCT u.tenant, u.queue, u.part
        FROM unnest(v_tenants, p_queues, p_partitions) AS u(tenant, queue, part)
        ORDER BY 1, 2, 3
    LOOP
        PERFORM queen.qdt_resolve_partition(v_rec.queue, v_rec.part, v_rec.tenant);
    END LOOP;
    FOR v_rec IN
        SELECT DISTINCT p.id
        FROM unnest(v_tenants, p_queues, p_partitions) AS u(tenant, queue, part)
        JOIN queen.queues q ON q.tenant_id = u.tenant AND q.name = u.queue
        JOIN queen.log_partitions p ON p.queue_id = q.id AND p.name = u.part
        ORDER BY p.id
    LOOP
        PERFORM queen.qdt_partition_turn(v_rec.id);
    END LOOP;
    PERFORM queen.qdt_line_leave();
    PERFORM 1
    FROM unnest(v_tenants, p_queues, p_partitions) AS u(tenant, queue, part)
    JOIN queen.queues q ON q.tenant_id = u.tenant AND q.name = u.queue
    JOIN queen.log_partitions p ON p.queue_id = q.id AND p.name = u.part
    ORDER BY p.id
    FOR UPDATE OF p;
    v_results := array_fill(NULL::jsonb, ARRAY[v_n]);
    FOR v_rec IN
        SELECT u.ord, p.id AS pid, q.dedup_window_seconds AS win
        FROM unnest(v_tenants, p_queues, p_partitions) WITH ORDINALITY AS u(tenant, queue, part, ord)
        JOIN queen.queues q ON q.tenant_id = u.tenant AND q.name = u.queue
        JOIN queen.log_partitions p ON p.queue_id = q.id AND p.name = u.part
        ORDER BY p.id, u.ord
    LOOP
        v_results[v_rec.ord] := queen.qdt_push_segment(v_rec.pid, v_rec.win, p_msg_counts[v_rec.ord],
            p_hashes[v_rec.ord], coalesce(p_verified[v_rec.ord], -1), p_blobs[v_rec.ord],
            p_windows_assumed[v_rec.ord]);
    END LOOP;
    IF array_position(v_results, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'QMULTI segment % has no partition', array_position(v_results, NULL);
    END IF;
    RETURN to_jsonb(v_results);
END;
$$;

-- The segment covering p_off, if it is still stored. Segments are disjoint,
-- so only the nearest one starting at or below p_off can cover it.
CREATE OR REPLACE FUNCTION queen.log_segment_at_v1(p_pid uuid, p_off bigint)
RETURNS TABLE (r_base bigint, r_end bigint, r_created timestamptz, r_blob bytea)
LANGUAGE sql STABLE
AS $$
    SELECT s.base_offset, s.end_offset, s.created_at, s.blob
    FROM queen.log_segments s
    WHERE s.partition_id = p_pid
      AND s.base_offset = (SELECT max(b.base_offset) FROM queen.log_segments b
                           WHERE b.partition_id = p_pid AND b.base_offset <= p_off)
      AND s.end_offset >= p_off
$$;

-- qdt's read (docs/semantics.md §2.10): stored segments holding offsets >= p_from, in
-- offset order, at most p_max_rows of them; the caller unpacks the frames.
CREATE OR REPLACE FUNCTION queen.qdt_read_segments_v1(p_pid uuid, p_from bigint, p_max_rows int)
RETURNS TABLE (r_base bigint, r_end bigint, r_created timestamptz, r_blob bytea)
LANGUAGE sql STABLE
AS $$
    SELECT s.base_offset, s.end_offset, s.created_at, s.blob
    FROM queen.log_segments s
    WHERE s.partition_id = p_pid AND s.end_offset >= p_from
    ORDER BY s.base_offset
    LIMIT p_max_rows
$$;

-- The cache's hydration read (docs/semantics.md §2.11): sidecar rows above p_after that
-- are not older than p_since, and last_offset, in one snapshot.
CREATE OR REPLACE FUNCTION queen.qdt_read_txns_v1(p_pid uuid, p_after bigint, p_since timestamptz)
RETURNS TABLE (r_base bigint, r_end bigint, r_created timestamptz, r_hashes bytea, r_last_offset bigint)
LANGUAGE sql STABLE
AS $$
    SELECT t.base_offset, t.end_offset, t.created_at, t.hashes, p.last_offset
    FROM queen.log_partitions p
    LEFT JOIN queen.log_txns t
      ON t.partition_id = p.id AND t.end_offset > p_after AND t.created_at >= p_since
    WHERE p.id = p_pid
    ORDER BY t.base_offset
$$;
