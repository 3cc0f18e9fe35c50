-- Outbox for Java: the failed attempts of the events of one outbox table, named after it with the suffix _attempts.
-- One row per failed attempt, written with the relay's failure mark (retry or dead letter) in its transaction:
-- when, the attempt's number, what followed, the error, the lease. A published attempt writes nothing here.
-- Rows are only ever inserted, and deleted with their event (cleanup, purge).
CREATE TABLE IF NOT EXISTS "${outbox_table}_attempts" (
    id       bigint      GENERATED ALWAYS AS IDENTITY,
    event_id uuid        NOT NULL,
    attempt  integer     NOT NULL,
    at       timestamptz NOT NULL,
    outcome  text        NOT NULL,
    error    text        NOT NULL,
    lease_id uuid        NOT NULL,
    CONSTRAINT "${outbox_table}_attempts_pkey" PRIMARY KEY (id)
);
CREATE INDEX IF NOT EXISTS "${outbox_table}_attempts_idx" ON "${outbox_table}_attempts" (event_id, id);
