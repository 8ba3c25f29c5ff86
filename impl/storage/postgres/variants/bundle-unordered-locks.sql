-- Design variant bundle-unordered-locks (docs/variants.md): a bundle takes
-- its partitions in the order the request named them, each turn and row
-- lock as its segment is pushed. Two bundles over the same partitions in
-- opposite orders each hold one and wait for the other: a wait cycle.
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
    v_results jsonb[] := '{}';
    v_pid uuid;
BEGIN
    FOR i IN 1 .. v_n LOOP
        v_pid := (queen.qdt_resolve_partition(p_queues[i], p_partitions[i],
                  coalesce(p_tenants[i], '00000000-0000-0000-0000-000000000001'::uuid))).r_pid;
        v_results := v_results || queen.qdt_push_segment(v_pid, NULL, p_msg_counts[i], p_hashes[i],
                                                         coalesce(p_verified[i], -1), p_blobs[i], p_windows_assumed[i]);
    END LOOP;
    RETURN to_jsonb(v_results);
END;
$$;
