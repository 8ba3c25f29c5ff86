-- Another feature's tables (a fixture of qdt's own): rows that reference the
-- queues, a settings table with a seed row, and idempotent DDL that raises
-- NOTICEs when a table or index already exists.
CREATE TABLE IF NOT EXISTS queen.queue_streams (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    queue_id uuid NOT NULL REFERENCES queen.queues (id),
    name text NOT NULL
);
CREATE TABLE IF NOT EXISTS queen.queue_streams (id uuid);
CREATE INDEX IF NOT EXISTS queue_streams_queue ON queen.queue_streams (queue_id);
CREATE INDEX IF NOT EXISTS queue_streams_queue ON queen.queue_streams (queue_id);
CREATE TABLE IF NOT EXISTS queen.push_audit (
    id bigserial PRIMARY KEY,
    queue_id uuid NOT NULL REFERENCES queen.queues (id),
    partition_id uuid NOT NULL,
    last_offset bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS queen.feature_settings (name text PRIMARY KEY, value text NOT NULL);
INSERT INTO queen.feature_settings VALUES ('audit', 'on') ON CONFLICT DO NOTHING;
DO $$ BEGIN RAISE NOTICE 'other features: schema ready'; END $$;
