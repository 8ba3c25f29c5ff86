-- qdt's own implementation of the queen-log-v1 interface (docs/semantics.md §9.3), written
-- from docs/semantics.md §2: the base schema. The log tables are in procedures/001.
-- Time columns carry no DEFAULT now(): a default is bound to the real clock
-- when the table is created, and qdt's verdicts read only the virtual one.
CREATE SCHEMA IF NOT EXISTS queen;

CREATE TABLE IF NOT EXISTS queen.queues (
    id uuid PRIMARY KEY,
    name text NOT NULL CHECK (octet_length(name) BETWEEN 1 AND 255),
    tenant_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000001',
    dedup_window_seconds int NOT NULL DEFAULT 3600 CHECK (dedup_window_seconds >= 0),
    retention_seconds int NOT NULL DEFAULT 0 CHECK (retention_seconds >= 0),
    completed_retention_seconds int NOT NULL DEFAULT 0 CHECK (completed_retention_seconds >= 0),
    retention_enabled boolean NOT NULL DEFAULT false,
    UNIQUE (tenant_id, name)
);
