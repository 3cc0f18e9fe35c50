-- Outbox for Java: what the operator reads about "why". The audit keeps an edit's new payload and headers beside
-- the originals, and the ids of the events a repair changed or removed (at most 10,000, in sequence order;
-- affected says how many there were). A dead letter's last attempt keeps which rule stopped the attempts
-- (e.g. the unroutable-destination budget), as the relay or the operator's dead-letter-now described it.
ALTER TABLE "${outbox_table}_audit" ADD COLUMN IF NOT EXISTS new_payload bytea;
ALTER TABLE "${outbox_table}_audit" ADD COLUMN IF NOT EXISTS new_headers jsonb;
ALTER TABLE "${outbox_table}_audit" ADD COLUMN IF NOT EXISTS event_ids uuid[];
ALTER TABLE "${outbox_table}_attempts" ADD COLUMN IF NOT EXISTS stopped_by text;
