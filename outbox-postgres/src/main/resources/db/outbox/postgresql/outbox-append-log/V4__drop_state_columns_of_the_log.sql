-- Outbox for Java: the log keeps what was appended, and only that. An event's state (pending, in
-- flight, sent, dead-lettered; attempts, last error, lease) lives in the side tables; columns of
-- that name on the log would keep their appended values forever, so a query of the outbox table by
-- its own name would read every event as pending. The views "<table>_events", "_pending" and
-- "_waiting" show the true state. next_attempt_at stays: when the event was first due.
-- Checked first: ALTER TABLE would queue for its lock behind any open transaction that read the
-- table, and the relays behind it. Idempotent, like V1.
DO $outbox$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '"${outbox_table}"'::regclass
                  AND attname = 'status' AND NOT attisdropped) THEN
        ALTER TABLE "${outbox_table}" DROP COLUMN status, DROP COLUMN attempts, DROP COLUMN last_error,
            DROP COLUMN leased_at, DROP COLUMN lease_id, DROP COLUMN sent_at;
    END IF;
END
$outbox$;
