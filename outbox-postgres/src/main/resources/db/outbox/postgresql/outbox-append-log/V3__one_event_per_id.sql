-- Outbox for Java: one event per id in the append-only layout. The partitioned log cannot have a
-- unique key on the id alone, so the writer looks each new event's id up in the log, in the INSERT
-- itself, and calls this function for an id that is there: it fails the INSERT as a unique violation
-- (the transaction is aborted, as the in-place layout's primary key aborts it). Idempotent, like V1.
CREATE OR REPLACE FUNCTION "${outbox_table}_id_taken"(event_id uuid) RETURNS boolean
    LANGUAGE plpgsql AS $outbox$
BEGIN
    RAISE EXCEPTION 'event id % is already in the outbox', event_id
        USING ERRCODE = 'unique_violation', HINT = 'every event needs a new id';
END
$outbox$;
