-- Outbox for Java: the append-only layout keeps no index by key. Per-key ordering finds the events
-- that a later event of their key waits for once per snapshot, in the log's position index, so an
-- index by key would cost every append a write and serve no read. Checked first: DROP INDEX would
-- queue for its lock behind any open transaction that read the table, and the relays behind it.
-- Idempotent, like V1.
DO $outbox$
BEGIN
    IF to_regclass('"${outbox_table}_key_idx"') IS NOT NULL THEN
        DROP INDEX "${outbox_table}_key_idx";
    END IF;
END
$outbox$;
