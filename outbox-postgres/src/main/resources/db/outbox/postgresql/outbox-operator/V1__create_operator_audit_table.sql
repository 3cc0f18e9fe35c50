-- Outbox for Java: the operator audit trail of one outbox table, named after it with the suffix _audit.
-- One row per operator action (requeue, purge, edit and requeue): who, when, which events, how many;
-- an edit keeps the event's original payload and headers. Rows are only ever inserted.
CREATE TABLE IF NOT EXISTS "${outbox_table}_audit" (
    id               bigint      GENERATED ALWAYS AS IDENTITY,
    at               timestamptz NOT NULL,
    actor            text        NOT NULL,
    action           text        NOT NULL,
    selection        text        NOT NULL,
    affected         bigint      NOT NULL,
    event_id         uuid,
    original_payload bytea,
    original_headers jsonb,
    CONSTRAINT "${outbox_table}_audit_pkey" PRIMARY KEY (id)
);
