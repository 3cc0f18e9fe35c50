-- Outbox for Java: the append-only layout's key index. Per-key ordering reads it to find a key's
-- earlier events that a lease has not reached yet (a transaction that locked another aggregate first
-- has the lower transaction id but appended after the writer it waited for); its entries are the
-- lookup's every condition, so the lookup reads no rows. Idempotent, like V1.
CREATE INDEX IF NOT EXISTS "${outbox_table}_key_idx" ON "${outbox_table}" (event_key, xact_id, seq)
    WHERE event_key IS NOT NULL;
