-- Outbox for Java: the heartbeats of the workers of one outbox table, named after it with the suffix _workers.
-- One row per running worker, upserted by the worker every beat interval (outbox.heartbeat.interval) and deleted
-- when it stops cleanly: who it is, how it relays, when it last leased, failed and beat. A worker whose last beat
-- is older than three intervals is shown as gone; any worker deletes the rows of workers gone for a day.
CREATE TABLE IF NOT EXISTS "${outbox_table}_workers" (
    worker_id        uuid        NOT NULL,
    process          text        NOT NULL,
    host             text        NOT NULL,
    version          text        NOT NULL,
    relay_threads    integer     NOT NULL,
    ordering         text        NOT NULL,
    layout           text        NOT NULL,
    started_at       timestamptz NOT NULL,
    beat_at          timestamptz NOT NULL,
    beat_interval_ms bigint      NOT NULL,
    last_lease_at    timestamptz,
    last_error_at    timestamptz,
    last_error       text,
    CONSTRAINT "${outbox_table}_workers_pkey" PRIMARY KEY (worker_id)
);
