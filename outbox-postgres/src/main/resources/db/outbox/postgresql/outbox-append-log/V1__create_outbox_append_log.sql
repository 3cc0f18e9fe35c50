-- Outbox for Java: the outbox table in the append-only layout (StoreLayout.APPEND_LOG). Requires
-- PostgreSQL 14 or later. The table's name is the placeholder outbox_table (Flyway placeholder,
-- Liquibase changelog property). Every statement is idempotent: ensureSchema() runs this file on
-- every start. The relay's cleaner creates the log's ranges after the first.

-- A table of the in-place layout is converted first (PostgresSchema.convertToAppendLog), never taken over.
DO $outbox$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_class WHERE oid = to_regclass('"${outbox_table}"') AND relkind = 'r') THEN
        RAISE EXCEPTION 'outbox table % is in the in-place layout', '"${outbox_table}"'
            USING HINT = 'convert it with PostgresSchema.convertToAppendLog (relays stopped), or keep the '
                         'layout in_place';
    END IF;
END
$outbox$;

CREATE TABLE IF NOT EXISTS "${outbox_table}" (
    id              uuid        NOT NULL,
    seq             bigint      GENERATED ALWAYS AS IDENTITY,
    type            text        NOT NULL,
    source          text        NOT NULL,
    event_key       text,
    destination     text        NOT NULL,
    routing_key     text        NOT NULL DEFAULT '',
    content_type    text        NOT NULL,
    payload         bytea       NOT NULL,
    headers         jsonb       NOT NULL DEFAULT '{}',
    status          text        NOT NULL DEFAULT 'pending',
    attempts        integer     NOT NULL DEFAULT 0,
    max_attempts    integer     NOT NULL,
    last_error      text,
    next_attempt_at timestamptz NOT NULL,
    created_at      timestamptz NOT NULL,
    leased_at       timestamptz,
    lease_id        uuid,
    sent_at         timestamptz,
    xact_id         xid8        NOT NULL DEFAULT pg_current_xact_id(),
    subject         text,
    data_schema     text,
    -- true once a dead letter's row was moved out of a range about to be dropped
    kept            boolean     NOT NULL DEFAULT false,
    CONSTRAINT "${outbox_table}_pkey" PRIMARY KEY (id, seq, kept)
) PARTITION BY LIST (kept);
-- The lease reads new events by position: transaction, then sequence (one index per partition).
CREATE INDEX IF NOT EXISTS "${outbox_table}_log_idx" ON "${outbox_table}" (xact_id, seq);
CREATE TABLE IF NOT EXISTS "${outbox_table}_live" PARTITION OF "${outbox_table}" FOR VALUES IN (false) PARTITION BY RANGE (seq);
CREATE TABLE IF NOT EXISTS "${outbox_table}_kept" PARTITION OF "${outbox_table}" FOR VALUES IN (true);
CREATE TABLE IF NOT EXISTS "${outbox_table}_overflow" PARTITION OF "${outbox_table}_live" DEFAULT;

-- One row per published event, partitioned like the log so that a range's records go with it.
CREATE TABLE IF NOT EXISTS "${outbox_table}_sent" (
    id       uuid        NOT NULL,
    seq      bigint      NOT NULL,
    sent_at  timestamptz NOT NULL,
    attempts integer     NOT NULL DEFAULT 0,
    CONSTRAINT "${outbox_table}_sent_pkey" PRIMARY KEY (id, seq)
) PARTITION BY RANGE (seq);
CREATE INDEX IF NOT EXISTS "${outbox_table}_sent_idx" ON "${outbox_table}_sent" (sent_at);
CREATE TABLE IF NOT EXISTS "${outbox_table}_sent_overflow" PARTITION OF "${outbox_table}_sent" DEFAULT;

-- The first range of the log and of the sent records; the cleaner creates the ranges ahead.
DO $outbox$
BEGIN
    -- (a table being converted from the in-place layout becomes the first range itself)
    IF to_regclass('"${outbox_table}_p1"') IS NULL
       AND NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhparent = '"${outbox_table}_live"'::regclass
                          AND inhrelid <> '"${outbox_table}_overflow"'::regclass) THEN
        CREATE TABLE "${outbox_table}_p1" PARTITION OF "${outbox_table}_live" FOR VALUES FROM (MINVALUE) TO (1000000);
        CREATE TABLE "${outbox_table}_sent_p1" PARTITION OF "${outbox_table}_sent" FOR VALUES FROM (MINVALUE) TO (1000000);
    END IF;
END
$outbox$;

-- done: every event whose transaction this snapshot sees has been taken; upto: the snapshot
-- being worked through (NULL when none), whose events up to (xact_id, seq) have been taken.
CREATE TABLE IF NOT EXISTS "${outbox_table}_position" (
    id      bigint       GENERATED ALWAYS AS IDENTITY,
    done    pg_snapshot  NOT NULL,
    upto    pg_snapshot,
    xact_id xid8         NOT NULL,
    seq     bigint       NOT NULL,
    CONSTRAINT "${outbox_table}_position_pkey" PRIMARY KEY (id)
);

-- A state table made unpartitioned is replaced, its rows kept: renamed here, copied below.
DO $outbox$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_class WHERE oid = to_regclass('"${outbox_table}_state"') AND relkind = 'r') THEN
        ALTER TABLE "${outbox_table}_state" RENAME TO "${outbox_table}_state_unpartitioned";
        ALTER TABLE "${outbox_table}_state_unpartitioned" RENAME CONSTRAINT "${outbox_table}_state_pkey" TO "${outbox_table}_state_unpartitioned_pkey";
        DROP INDEX IF EXISTS "${outbox_table}_state_pending_idx", "${outbox_table}_state_in_flight_idx", "${outbox_table}_state_failed_idx", "${outbox_table}_state_key_idx", "${outbox_table}_state_dl_type_idx", "${outbox_table}_state_dl_dest_idx", "${outbox_table}_state_dl_created_idx";
    END IF;
END
$outbox$;
-- Partitioned by generation: the rows of events parked behind their key go to the generation
-- being written, truncated once worked through; every other row to the kept partition.
CREATE TABLE IF NOT EXISTS "${outbox_table}_state" (
    id              uuid        NOT NULL,
    seq             bigint      NOT NULL,
    event_key       text,
    status          text        NOT NULL,
    attempts        integer     NOT NULL DEFAULT 0,
    last_error      text,
    next_attempt_at timestamptz NOT NULL,
    leased_at       timestamptz,
    lease_id        uuid,
    -- copied from the log, so that the operator's dead-letter filters read the state table alone
    type            text,
    destination     text,
    created_at      timestamptz,
    gen             smallint    NOT NULL DEFAULT -1,
    CONSTRAINT "${outbox_table}_state_pkey" PRIMARY KEY (id, gen),
    CONSTRAINT "${outbox_table}_state_status_check" CHECK (status IN ('pending', 'in_flight', 'failed'))
) PARTITION BY LIST (gen);
CREATE TABLE IF NOT EXISTS "${outbox_table}_state_kept" PARTITION OF "${outbox_table}_state" FOR VALUES IN (-1);
CREATE TABLE IF NOT EXISTS "${outbox_table}_state_0" PARTITION OF "${outbox_table}_state" FOR VALUES IN (0);
CREATE TABLE IF NOT EXISTS "${outbox_table}_state_1" PARTITION OF "${outbox_table}_state" FOR VALUES IN (1);
-- a state table created without the copied columns gets them (checked first: ALTER TABLE would
-- queue for its lock behind any open transaction that read the table, and the relays behind it)
DO $outbox$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '"${outbox_table}_state"'::regclass
                      AND attname = 'created_at' AND NOT attisdropped) THEN
        ALTER TABLE "${outbox_table}_state" ADD COLUMN type text, ADD COLUMN destination text,
            ADD COLUMN created_at timestamptz;
        UPDATE "${outbox_table}_state" s SET type = e.type, destination = e.destination, created_at = e.created_at
          FROM "${outbox_table}" e WHERE e.id = s.id AND e.seq = s.seq;
    END IF;
END
$outbox$;
CREATE INDEX IF NOT EXISTS "${outbox_table}_state_pending_idx" ON "${outbox_table}_state" (seq, next_attempt_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS "${outbox_table}_state_in_flight_idx" ON "${outbox_table}_state" (leased_at) WHERE status = 'in_flight';
CREATE INDEX IF NOT EXISTS "${outbox_table}_state_failed_idx" ON "${outbox_table}_state" (seq) WHERE status = 'failed';
-- Per-key ordering: the events of a key that hold it back (and the operator's key filter).
CREATE INDEX IF NOT EXISTS "${outbox_table}_state_key_idx" ON "${outbox_table}_state" (event_key, seq) WHERE event_key IS NOT NULL;
-- The operator's dead-letter filters: only the matching dead letters are read, in sequence order.
CREATE INDEX IF NOT EXISTS "${outbox_table}_state_dl_type_idx" ON "${outbox_table}_state" (type, seq) WHERE status = 'failed';
CREATE INDEX IF NOT EXISTS "${outbox_table}_state_dl_dest_idx" ON "${outbox_table}_state" (destination, seq) WHERE status = 'failed';
CREATE INDEX IF NOT EXISTS "${outbox_table}_state_dl_created_idx" ON "${outbox_table}_state" (created_at, seq) WHERE status = 'failed';

DO $outbox$
BEGIN
    IF to_regclass('"${outbox_table}_state_unpartitioned"') IS NOT NULL THEN
        INSERT INTO "${outbox_table}_state" (id, seq, event_key, status, attempts, last_error, next_attempt_at, leased_at,
                          lease_id, type, destination, created_at)
        SELECT o.id, o.seq, o.event_key, o.status, o.attempts, o.last_error, o.next_attempt_at,
               o.leased_at, o.lease_id, e.type, e.destination, e.created_at
          FROM "${outbox_table}_state_unpartitioned" o LEFT JOIN "${outbox_table}" e ON e.id = o.id AND e.seq = o.seq;
        DROP TABLE "${outbox_table}_state_unpartitioned" CASCADE;
    END IF;
END
$outbox$;

-- Every event of a lower sequence has been taken by the position: the lease skips the partitions below.
CREATE TABLE IF NOT EXISTS "${outbox_table}_floor" (
    id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    seq bigint NOT NULL
);

-- New events in flight, one row per lease: a published batch leaves one dead row, not one per event.
-- Two generations written in turn, each truncated once empty: those rows go whatever the horizon.
-- (A lease table made unpartitioned is replaced, its rows kept: they are leases in flight.)
DO $outbox$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_class WHERE oid = to_regclass('"${outbox_table}_lease"') AND relkind = 'r') THEN
        ALTER TABLE "${outbox_table}_lease" RENAME TO "${outbox_table}_lease_unpartitioned";
        ALTER TABLE "${outbox_table}_lease_unpartitioned" RENAME CONSTRAINT "${outbox_table}_lease_pkey" TO "${outbox_table}_lease_unpartitioned_pkey";
    END IF;
END
$outbox$;
CREATE TABLE IF NOT EXISTS "${outbox_table}_lease" (
    gen       smallint    NOT NULL,
    lease_id  uuid        NOT NULL,
    leased_at timestamptz NOT NULL,
    ids       uuid[]      NOT NULL,
    keys      text[]      NOT NULL,
    -- the events' sequences, in the order of ids: their log and sent partitions
    seqs      bigint[]    NOT NULL,
    CONSTRAINT "${outbox_table}_lease_pkey" PRIMARY KEY (lease_id, gen)
) PARTITION BY LIST (gen);
CREATE TABLE IF NOT EXISTS "${outbox_table}_lease_0" PARTITION OF "${outbox_table}_lease" FOR VALUES IN (0);
CREATE TABLE IF NOT EXISTS "${outbox_table}_lease_1" PARTITION OF "${outbox_table}_lease" FOR VALUES IN (1);
DO $outbox$
BEGIN
    IF to_regclass('"${outbox_table}_lease_unpartitioned"') IS NOT NULL THEN
        INSERT INTO "${outbox_table}_lease" (gen, lease_id, leased_at, ids, keys, seqs)
        SELECT 0, lease_id, leased_at, ids, keys, seqs FROM "${outbox_table}_lease_unpartitioned";
        DROP TABLE "${outbox_table}_lease_unpartitioned" CASCADE;
    END IF;
END
$outbox$;

-- Every event in flight: leased again from the state table, or new in a lease row.
CREATE OR REPLACE VIEW "${outbox_table}_in_flight" AS
SELECT id, lease_id, leased_at, seq FROM "${outbox_table}_state" WHERE status = 'in_flight'
UNION ALL
SELECT x.id, l.lease_id, l.leased_at, x.seq FROM "${outbox_table}_lease" l, unnest(l.ids, l.seqs) AS x(id, seq);

CREATE OR REPLACE VIEW "${outbox_table}_events" AS
SELECT e.id, e.seq, e.type, e.source, e.event_key, e.destination, e.routing_key, e.content_type,
       e.payload, e.headers,
       coalesce(s.status, CASE WHEN f.id IS NOT NULL THEN 'in_flight'
                               WHEN d.id IS NOT NULL THEN 'sent' ELSE 'pending' END) AS status,
       coalesce(s.attempts, d.attempts, 0) AS attempts, e.max_attempts, s.last_error,
       coalesce(s.next_attempt_at, e.next_attempt_at) AS next_attempt_at, e.created_at,
       coalesce(s.leased_at, f.leased_at) AS leased_at, coalesce(s.lease_id, f.lease_id) AS lease_id,
       d.sent_at, e.subject, e.data_schema
  FROM "${outbox_table}" e LEFT JOIN "${outbox_table}_state" s ON s.id = e.id LEFT JOIN "${outbox_table}_sent" d ON d.id = e.id AND d.seq = e.seq
  LEFT JOIN (SELECT x.id, l.lease_id, l.leased_at FROM "${outbox_table}_lease" l, unnest(l.ids) AS x(id)) f ON f.id = e.id;

CREATE OR REPLACE VIEW "${outbox_table}_pending" AS
SELECT e.id, e.seq, e.type, e.source, e.event_key, e.destination, e.routing_key, e.content_type,
       e.payload, e.headers, 'pending'::text AS status, 0 AS attempts, e.max_attempts,
       NULL::text AS last_error, e.next_attempt_at, e.created_at, NULL::timestamptz AS leased_at,
       NULL::uuid AS lease_id, NULL::timestamptz AS sent_at, e.subject, e.data_schema
  FROM "${outbox_table}" e,
       ((SELECT done, upto, xact_id, seq FROM "${outbox_table}_position" ORDER BY id DESC LIMIT 1)
         UNION ALL SELECT '1:1:'::pg_snapshot, NULL, '0'::xid8, 0 LIMIT 1) p
 WHERE e.xact_id >= pg_snapshot_xmin(p.done)
   AND NOT pg_visible_in_snapshot(e.xact_id, p.done)
   AND NOT (p.upto IS NOT NULL AND pg_visible_in_snapshot(e.xact_id, p.upto)
            AND (e.xact_id, e.seq) <= (p.xact_id, p.seq))
UNION ALL
SELECT e.id, e.seq, e.type, e.source, e.event_key, e.destination, e.routing_key, e.content_type,
       e.payload, e.headers, s.status, s.attempts, e.max_attempts, s.last_error,
       s.next_attempt_at, e.created_at, s.leased_at, s.lease_id, NULL::timestamptz, e.subject,
       e.data_schema
  FROM "${outbox_table}_state" s JOIN "${outbox_table}" e ON e.id = s.id AND e.seq = s.seq
 WHERE s.status = 'pending';

-- The pending events and the dead letters: what the per-key backlog looks at.
CREATE OR REPLACE VIEW "${outbox_table}_waiting" AS
SELECT * FROM "${outbox_table}_pending"
UNION ALL
SELECT e.id, e.seq, e.type, e.source, e.event_key, e.destination, e.routing_key, e.content_type,
       e.payload, e.headers, s.status, s.attempts, e.max_attempts, s.last_error,
       s.next_attempt_at, e.created_at, s.leased_at, s.lease_id, NULL::timestamptz, e.subject,
       e.data_schema
  FROM "${outbox_table}_state" s JOIN "${outbox_table}" e ON e.id = s.id AND e.seq = s.seq
 WHERE s.status = 'failed';
