-- Outbox for Java: indexes for the operator's dead-letter filters (web console, operator API), so a list
-- filtered by type, destination, key or creation time reads only the matching dead letters, in sequence order,
-- however many other dead letters there are. Partial indexes over dead letters only: an event enters
-- them when it is dead-lettered, so the relay's hot path writes none of them. (With per-key ordering the
-- key has an index of its own already; the one here serves the other orderings too.) For the in-place
-- table only: the append-only layout keeps its dead letters in its state table, indexed by its own migration.
DO $outbox$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '"${outbox_table}"'::regclass
                  AND attname = 'status' AND NOT attisdropped) THEN
        CREATE INDEX IF NOT EXISTS "${outbox_table}_dl_type_idx" ON "${outbox_table}" (type, seq)
            WHERE status = 'failed';
        CREATE INDEX IF NOT EXISTS "${outbox_table}_dl_dest_idx" ON "${outbox_table}" (destination, seq)
            WHERE status = 'failed';
        CREATE INDEX IF NOT EXISTS "${outbox_table}_dl_created_idx" ON "${outbox_table}" (created_at, seq)
            WHERE status = 'failed';
        CREATE INDEX IF NOT EXISTS "${outbox_table}_dl_key_idx" ON "${outbox_table}" (event_key, seq)
            WHERE status = 'failed' AND event_key IS NOT NULL;
    END IF;
END
$outbox$;
