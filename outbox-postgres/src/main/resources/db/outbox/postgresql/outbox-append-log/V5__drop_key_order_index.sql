-- Outbox for Java: the append-only layout keeps no index by key. Per-key ordering finds the events
-- that a later event of their key waits for once per snapshot, in the log's position index, so an
-- index by key would cost every append a write and serve no read. Found through the table (an index
-- name cannot carry the table's schema) and checked first: DROP INDEX would queue for its lock behind
-- any open transaction that read the table, and the relays behind it. Idempotent, like V1.
DO $outbox$
DECLARE
    key_index regclass := (
        SELECT i.indexrelid::regclass
          FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         WHERE i.indrelid = '"${outbox_table}"'::regclass
           AND c.relname = (SELECT relname FROM pg_class WHERE oid = '"${outbox_table}"'::regclass) || '_key_idx');
BEGIN
    IF key_index IS NOT NULL THEN
        EXECUTE format('DROP INDEX %s', key_index);
    END IF;
END
$outbox$;
