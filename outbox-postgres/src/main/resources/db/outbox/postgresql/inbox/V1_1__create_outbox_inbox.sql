-- Outbox for Java: the inbox table outbox_inbox (schema version 1).
-- One row per message a consumer processed, written in the same transaction as the
-- consumer's effect; the primary key makes a concurrent duplicate wait for the first
-- delivery's commit and then find the row (INSERT ... ON CONFLICT DO NOTHING).
CREATE TABLE IF NOT EXISTS "outbox_inbox" (
    consumer_name text        NOT NULL,
    message_id    text        NOT NULL,
    processed_at  timestamptz NOT NULL,
    CONSTRAINT "outbox_inbox_pkey" PRIMARY KEY (consumer_name, message_id)
);

-- The cleaner: records past the retention window, oldest first.
CREATE INDEX IF NOT EXISTS "outbox_inbox_processed_idx" ON "outbox_inbox" (processed_at);
