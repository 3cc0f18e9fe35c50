-- Outbox for Java: the two indexes of per-key ordering (outbox.ordering=per_key), for the table that
-- the migrations in db/outbox/postgresql/outbox create. Repeatable, so it can be added to a history at
-- any time (when ordering is turned on later) and is re-run only when this file changes.
-- The table's name is the placeholder outbox_table, as in the table's own migrations.
--
-- A lease candidate probes its key's earlier pending events for the commit-order guard, and its
-- earlier events that hold the key (in flight, dead-lettered); every condition is a key column, so
-- neither probe reads the rows.
CREATE INDEX IF NOT EXISTS "${outbox_table}_key_guard_idx" ON "${outbox_table}" (event_key, seq, xact_id)
    WHERE status = 'pending' AND event_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS "${outbox_table}_key_held_idx" ON "${outbox_table}" (event_key, seq)
    WHERE status IN ('in_flight', 'failed') AND event_key IS NOT NULL;
