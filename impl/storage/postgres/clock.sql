-- qdt's virtual clock inside PostgreSQL (docs/semantics.md §9.2). Sessions run with
-- search_path = qdt_clock, pg_catalog, public, so an unqualified call to one
-- of these four functions reads the world's virtual time instead of the
-- server's real clock.
CREATE SCHEMA IF NOT EXISTS qdt_clock;

-- One row: unix microseconds of virtual time. The world writes it whenever
-- virtual time advances, before any session proceeds.
CREATE TABLE IF NOT EXISTS qdt_clock.clock (
    one_row boolean PRIMARY KEY DEFAULT true CHECK (one_row),
    now_us bigint NOT NULL DEFAULT 0
);
INSERT INTO qdt_clock.clock (one_row, now_us) VALUES (true, 0) ON CONFLICT DO NOTHING;

-- Exact to the microsecond: interval arithmetic on whole microseconds never
-- goes through a fractional seconds value. PL/pgSQL keeps the plan across
-- calls (a SQL function reading a table is planned again at every call).
CREATE OR REPLACE FUNCTION qdt_clock.clock_timestamp() RETURNS timestamptz
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
    RETURN (SELECT pg_catalog.to_timestamp(0) + c.now_us * interval '1 microsecond' FROM qdt_clock.clock c);
END;
$$;

-- now() and transaction_timestamp() are the virtual time at BEGIN, as the
-- server's own are the real time at BEGIN: qdt opens every transaction with
-- BEGIN and a transaction-local setting qdt.txn_start_us. Outside such a
-- transaction they fall back to the clock.
CREATE OR REPLACE FUNCTION qdt_clock.transaction_timestamp() RETURNS timestamptz
LANGUAGE sql VOLATILE
AS $$
SELECT coalesce(pg_catalog.to_timestamp(0)
                + nullif(pg_catalog.current_setting('qdt.txn_start_us', true), '')::bigint
                  * interval '1 microsecond',
                qdt_clock.clock_timestamp())
$$;

CREATE OR REPLACE FUNCTION qdt_clock.now() RETURNS timestamptz
LANGUAGE sql VOLATILE
AS $$ SELECT qdt_clock.transaction_timestamp() $$;

CREATE OR REPLACE FUNCTION qdt_clock.statement_timestamp() RETURNS timestamptz
LANGUAGE sql VOLATILE
AS $$ SELECT qdt_clock.clock_timestamp() $$;


-- gen_random_uuid() without chance, numbered from each run's reset: a
-- user's SQL that makes its rows' ids with it (a column DEFAULT binds to
-- this one, created first) would otherwise lock a bundle's rows, in
-- ascending id, in another order every run.
CREATE SEQUENCE IF NOT EXISTS qdt_clock.uuid_seq;
CREATE OR REPLACE FUNCTION qdt_clock.gen_random_uuid() RETURNS uuid
LANGUAGE sql VOLATILE
AS $$ SELECT pg_catalog.md5('qdt-uuid:' || pg_catalog.nextval('qdt_clock.uuid_seq')::text)::uuid $$;

-- Virtual time never moves backwards; only a reset (which rewrites the row
-- directly) returns it to zero.
CREATE OR REPLACE FUNCTION qdt_clock.set_us(p_now_us bigint) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    UPDATE qdt_clock.clock SET now_us = p_now_us WHERE now_us <= p_now_us;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'QCLOCK virtual time may not move backwards (to % us)', p_now_us;
    END IF;
END;
$$;
