-- Outbox for Java: the inbox table of effectively-once consumers.
-- The table's name is the placeholder inbox_table (Flyway placeholder, Liquibase changelog property):
-- lower-case letters, digits and _, as the library's table setting accepts.
-- One row per message a consumer processed, written in the same transaction as the
-- consumer's effect; the primary key makes a concurrent duplicate wait for the first
-- delivery's commit and then find the row (INSERT ... ON CONFLICT DO NOTHING).
CREATE TABLE IF NOT EXISTS "${inbox_table}" (
    consumer_name text        NOT NULL,
    message_id    text        NOT NULL,
    processed_at  timestamptz NOT NULL,
    CONSTRAINT "${inbox_table}_pkey" PRIMARY KEY (consumer_name, message_id)
);

-- The cleaner: records past the retention window, oldest first.
CREATE INDEX IF NOT EXISTS "${inbox_table}_processed_idx" ON "${inbox_table}" (processed_at);
