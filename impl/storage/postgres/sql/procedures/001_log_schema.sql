-- The log tables of queen-log-v1 (docs/semantics.md §2.4, 9.3) and the helpers the other
-- procedure files share.

CREATE TABLE IF NOT EXISTS queen.log_partitions (
    id uuid PRIMARY KEY,
    queue_id uuid NOT NULL REFERENCES queen.queues (id),
    name text NOT NULL CHECK (octet_length(name) BETWEEN 1 AND 255),
    last_offset bigint NOT NULL DEFAULT -1,
    log_start bigint NOT NULL DEFAULT 0,
    txns_start bigint NOT NULL DEFAULT 0,
    UNIQUE (queue_id, name)
);

-- A segment: the contiguous span [base_offset, end_offset] and its packed
-- frames, opaque to SQL.
CREATE TABLE IF NOT EXISTS queen.log_segments (
    partition_id uuid NOT NULL,
    base_offset bigint NOT NULL,
    end_offset bigint NOT NULL,
    created_at timestamptz NOT NULL,
    blob bytea NOT NULL,
    PRIMARY KEY (partition_id, base_offset)
);

-- The sidecar: one row per segment, the same span and stamp, and 16 bytes of
-- hash per frame in frame order.
CREATE TABLE IF NOT EXISTS queen.log_txns (
    partition_id uuid NOT NULL,
    base_offset bigint NOT NULL,
    end_offset bigint NOT NULL,
    created_at timestamptz NOT NULL,
    hashes bytea NOT NULL CHECK (octet_length(hashes) = 16 * (end_offset - base_offset + 1)),
    PRIMARY KEY (partition_id, base_offset)
);
CREATE INDEX IF NOT EXISTS log_txns_end ON queen.log_txns (partition_id, end_offset);

-- committed: the last offset the group has acknowledged; acks commit
-- cumulatively (an ack of a later offset commits the earlier ones).
CREATE TABLE IF NOT EXISTS queen.log_consumers (
    partition_id uuid NOT NULL,
    consumer_group text NOT NULL,
    committed bigint NOT NULL DEFAULT -1,
    PRIMARY KEY (partition_id, consumer_group)
);

-- Ids derived from the names, not gen_random_uuid(): a bundle locks its rows
-- in ascending id, so random ids would make the lock order differ between
-- two runs of one seed. Length prefixes keep (queue, partition) pairs apart.
CREATE OR REPLACE FUNCTION queen.qdt_queue_id(p_tenant uuid, p_queue text) RETURNS uuid
LANGUAGE sql IMMUTABLE
AS $$ SELECT md5('q' || p_tenant::text || ':' || octet_length(p_queue)::text || ':' || p_queue)::uuid $$;

CREATE OR REPLACE FUNCTION queen.qdt_partition_id(p_queue_id uuid, p_partition text) RETURNS uuid
LANGUAGE sql IMMUTABLE
AS $$ SELECT md5('p' || p_queue_id::text || ':' || octet_length(p_partition)::text || ':' || p_partition)::uuid $$;

-- A partition's turn: every transaction of qdt's that locks a partition row
-- takes this advisory lock first (shared to read), released at its end. The
-- server grants an advisory lock's waiters in the order they asked; waiters
-- on a row its holder updates instead all wake at its commit and race for
-- the new version, so the server's timing, not the schedule, would pick the
-- next holder. The key is the one pg_sql.h's statements compute.
CREATE OR REPLACE FUNCTION queen.qdt_partition_turn(p_pid uuid, p_shared boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    IF p_shared THEN
        PERFORM pg_advisory_xact_lock_shared(hashtextextended('qdt-partition:' || p_pid::text, 0));
    ELSE
        PERFORM pg_advisory_xact_lock(hashtextextended('qdt-partition:' || p_pid::text, 0));
    END IF;
END;
$$;

-- The line: a statement that takes more than one turn (a bundle, or a
-- configure's two statements) queues here first and leaves once it holds
-- every turn, so at most one such statement waits for a turn at a time. One
-- commit may grant several waiters their turns at once, and two of them
-- going on to ask for the same further turn would race: then only one of
-- them can still be asking. A session-level lock, released by the
-- statement itself (or by qdt's ROLLBACK when it fails on the way). The key
-- is the one pg_sql.h's statements compute.
CREATE OR REPLACE FUNCTION queen.qdt_line_enter() RETURNS void
LANGUAGE sql
AS $$ SELECT pg_advisory_lock(hashtextextended('qdt-line', 0)) $$;

CREATE OR REPLACE FUNCTION queen.qdt_line_leave() RETURNS void
LANGUAGE sql
AS $$ SELECT pg_advisory_unlock(hashtextextended('qdt-line', 0)) $$;

-- The partition's id and its queue's window, provisioning both on first
-- contact. Takes no lock on an existing partition row.
CREATE OR REPLACE FUNCTION queen.qdt_resolve_partition(p_queue text, p_partition text, p_tenant uuid,
                                                       OUT r_pid uuid, OUT r_window int)
LANGUAGE plpgsql
AS $$
BEGIN
    SELECT p.id, q.dedup_window_seconds INTO r_pid, r_window
    FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id
    WHERE q.tenant_id = p_tenant AND q.name = p_queue AND p.name = p_partition;
    IF r_pid IS NULL THEN
        IF coalesce(octet_length(p_queue), 0) NOT BETWEEN 1 AND 255
           OR coalesce(octet_length(p_partition), 0) NOT BETWEEN 1 AND 255 THEN
            RAISE EXCEPTION 'QPUSH queue and partition names must be 1-255 bytes';
        END IF;
        -- Creators of one queue's rows take turns in a lock's queue: waiting
        -- on another's unique insert instead would wake every waiter at
        -- once, and which of them locks the new row first would be chance.
        PERFORM pg_advisory_xact_lock(hashtextextended(p_tenant::text || ':' || p_queue, 0));
        INSERT INTO queen.queues (id, tenant_id, name)
        VALUES (queen.qdt_queue_id(p_tenant, p_queue), p_tenant, p_queue)
        ON CONFLICT (tenant_id, name) DO NOTHING;
        INSERT INTO queen.log_partitions (id, queue_id, name)
        SELECT queen.qdt_partition_id(q.id, p_partition), q.id, p_partition
        FROM queen.queues q WHERE q.tenant_id = p_tenant AND q.name = p_queue
        ON CONFLICT (queue_id, name) DO NOTHING;
        SELECT p.id, q.dedup_window_seconds INTO r_pid, r_window
        FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id
        WHERE q.tenant_id = p_tenant AND q.name = p_queue AND p.name = p_partition;
    END IF;
END;
$$;

-- The 16-byte hashes of a packed hash blob, with their frame index.
CREATE OR REPLACE FUNCTION queen.qdt_hashes(p_hashes bytea)
RETURNS TABLE (frame_index int, hash bytea)
LANGUAGE sql IMMUTABLE
AS $$
    SELECT k, substring(p_hashes FROM k * 16 + 1 FOR 16)
    FROM generate_series(0, octet_length(p_hashes) / 16 - 1) AS k
$$;
