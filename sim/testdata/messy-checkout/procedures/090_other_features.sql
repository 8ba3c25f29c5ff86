-- Another feature's trigger (a fixture of qdt's own): every write of a
-- partition row leaves rows in tables that reference the queues.
CREATE OR REPLACE FUNCTION queen.fixture_audit_partition() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF (SELECT value FROM queen.feature_settings WHERE name = 'audit') = 'on' THEN
        INSERT INTO queen.push_audit (queue_id, partition_id, last_offset)
        VALUES (NEW.queue_id, NEW.id, NEW.last_offset);
        INSERT INTO queen.queue_streams (queue_id, name)
        SELECT NEW.queue_id, 'default'
        WHERE NOT EXISTS (SELECT 1 FROM queen.queue_streams s WHERE s.queue_id = NEW.queue_id);
    END IF;
    RETURN NEW;
END;
$$;
DROP TRIGGER IF EXISTS fixture_audit_partition ON queen.log_partitions;
CREATE TRIGGER fixture_audit_partition AFTER INSERT OR UPDATE OF last_offset ON queen.log_partitions
    FOR EACH ROW EXECUTE FUNCTION queen.fixture_audit_partition();

-- Functions the adapter never calls.
CREATE OR REPLACE FUNCTION queen.fixture_queue_report_v1(p_queue text) RETURNS jsonb
LANGUAGE sql
AS $$ SELECT jsonb_build_object('queue', p_queue, 'audited', (SELECT count(*) FROM queen.push_audit)) $$;
