-- Outbox for Java: the outbox table. Requires PostgreSQL 14 or later.
-- The table's name is the placeholder outbox_table (Flyway placeholder, Liquibase changelog property):
-- lower-case letters, digits and _, as the library's table setting accepts.
CREATE TABLE IF NOT EXISTS "${outbox_table}" (
    id              uuid        NOT NULL,
    -- Unique by construction (identity, ALWAYS). Deliberately no index over all rows: a
    -- full index on seq would compete with the pending partial index for the lease
    -- query's ORDER BY seq and walk every sent row once statistics go stale.
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
    -- The writing transaction: per-key ordering leases an event only once every
    -- transaction older than it has ended (commit-order guard).
    xact_id         xid8        NOT NULL DEFAULT pg_current_xact_id(),
    CONSTRAINT "${outbox_table}_pkey" PRIMARY KEY (id),
    CONSTRAINT "${outbox_table}_status_check" CHECK (status IN ('pending', 'in_flight', 'sent', 'failed')),
    CONSTRAINT "${outbox_table}_attempts_check" CHECK (attempts >= 0 AND max_attempts >= 1)
) WITH (
    -- Every status change rewrites the row (status is in the partial-index predicates,
    -- so no HOT update): vacuum early and unthrottled, or dead index entries slow the lease query.
    autovacuum_vacuum_scale_factor = 0.01,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_insert_scale_factor = 0.05,
    autovacuum_analyze_scale_factor = 0.02,
    autovacuum_vacuum_cost_delay = 0
);

-- The lease query: due pending events in sequence order.
CREATE INDEX IF NOT EXISTS "${outbox_table}_pending_idx" ON "${outbox_table}" (seq, next_attempt_at) WHERE status = 'pending';
-- The sweeper: expired leases.
CREATE INDEX IF NOT EXISTS "${outbox_table}_in_flight_idx" ON "${outbox_table}" (leased_at) WHERE status = 'in_flight';
-- Dead letters, oldest first.
CREATE INDEX IF NOT EXISTS "${outbox_table}_failed_idx" ON "${outbox_table}" (seq) WHERE status = 'failed';
-- The cleaner: sent events past retention.
CREATE INDEX IF NOT EXISTS "${outbox_table}_sent_idx" ON "${outbox_table}" (sent_at) WHERE status = 'sent';
