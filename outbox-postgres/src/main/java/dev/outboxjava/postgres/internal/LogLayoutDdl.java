package dev.outboxjava.postgres.internal;

import dev.outboxjava.postgres.WakeUpMode;

/**
 * The DDL of the append-only layout ({@code StoreLayout.APPEND_LOG}) for one outbox table
 * {@code t}. Every statement is idempotent.
 *
 * <ul>
 *   <li>{@code t}: the events, as appended, never updated: the in-place table's columns without the state
 *       ones (status, attempts, last error, lease, sent time), which live in the side tables below, so that
 *       nothing on the table reads as a state it does not have. Read by position through the index on
 *       {@code (xact_id, seq)}; per key, also through {@code (event_key, xact_id, seq)}.</li>
 *   <li>{@code t_position}: append-only, one row per lease that took new events: how far the log has
 *       been read, as transaction snapshots (see {@code appendlog.LogLease}). The current position is the
 *       row with the greatest id.</li>
 *   <li>{@code t_state}: the events that are waiting (for a retry, a schedule, after a release) or
 *       dead-lettered, and those leased again from it (in flight). Small: an event leaves it when it is
 *       published. Partitioned: the events parked behind their key in two generations,
 *       {@code t_state_0} and {@code t_state_1}, truncated once worked through ({@code appendlog.ParkingGenerations});
 *       every other row in {@code t_state_kept}.</li>
 *   <li>{@code t_lease}: new events in flight, one row per lease (their ids and keys), so that a
 *       published batch leaves one dead row instead of one per event; a lease whose events do not all
 *       get published is moved into {@code t_state} first, event by event. Partitioned into two
 *       generations, {@code t_lease_0} and {@code t_lease_1}, written in turn and truncated once empty
 *       ({@code appendlog.LeaseGenerations}), so those dead rows go whatever the horizon.</li>
 *   <li>{@code t_sent}: append-only, one row per published event (keep-sent mode), with its time.</li>
 *   <li>{@code t_floor}: append-only, written by the cleaner: a sequence below which every event has been
 *       taken, so that the lease leaves out the partitions below it.</li>
 *   <li>{@code t_events}, {@code t_pending} and {@code t_waiting}: views giving every event, the pending
 *       ones, and the pending ones with the dead letters the in-place table's columns, for the operator's
 *       queries; {@code t_in_flight}: every event in flight, from both tables.</li>
 * </ul>
 */
public final class LogLayoutDdl {

    private LogLayoutDdl() {}

    /**
     * The DDL for {@code table}: the shipped migration files ({@link MigrationFiles#OUTBOX_APPEND_LOG}) for
     * the configured table, with the wake-up trigger created or dropped.
     */
    public static String render(Identifiers.TableName table, String channel, WakeUpMode wakeUp) {
        return "-- Outbox for Java: the outbox table " + table.display() + " in the append-only layout (the "
                + "migrations in " + MigrationFiles.OUTBOX_APPEND_LOG_LOCATION + ").\n"
                + tables(table) + SchemaDdl.wakeUp(table, channel, wakeUp);
    }

    /** The layout's tables, indexes and views, from the shipped migration files. */
    private static String tables(Identifiers.TableName table) {
        return MigrationFiles.render(MigrationFiles.OUTBOX_APPEND_LOG, MigrationFiles.OUTBOX_TABLE_PLACEHOLDER, table);
    }

    /**
     * Converts an in-place table into this layout, in one transaction, with the relay stopped: the table
     * becomes the log's first range partition (its rows stay as they are, its own identity and status
     * indexes are dropped, the new log's sequence goes on after its last row); pending and in-flight
     * events become pending state rows (in-flight ones are published again: at least once), dead letters
     * failed ones, sent events sent records; the position starts after every row. Producers may keep
     * running: they wait for the conversion's lock and their events come after it.
     */
    public static String convertFromInPlace(Identifiers.TableName table, String channel, WakeUpMode wakeUp) {
        String t = table.quoted();
        Identifiers.TableName first = range(table, 1);
        String p1 = first.quoted();
        return """
                -- Outbox for Java: converting %1$s from the in-place layout to the append-only layout.
                -- Waits for the writing transactions in progress; producers wait for this one.
                LOCK TABLE %2$s IN ACCESS EXCLUSIVE MODE;
                DROP INDEX IF EXISTS %3$s, %4$s, %5$s, %6$s, %7$s, %8$s, %9$s;
                -- the table becomes the first range of the partitioned log
                ALTER TABLE %2$s RENAME TO %10$s;
                -- the log's key is (id, seq, kept): the old key on id alone goes
                ALTER TABLE %13$s DROP CONSTRAINT %12$s;
                ALTER TABLE %13$s ALTER COLUMN seq DROP IDENTITY;
                ALTER TABLE %13$s ADD COLUMN kept boolean NOT NULL DEFAULT false;
                """.formatted(
                                table.display(),
                                t,
                                table.quotedSibling("_pending_idx"),
                                table.quotedSibling("_in_flight_idx"),
                                table.quotedSibling("_failed_idx"),
                                table.quotedSibling("_sent_idx"),
                                table.quotedSibling("_key_guard_idx"),
                                table.quotedSibling("_key_held_idx"),
                                table.quotedSibling("_key_order_idx"),
                                Identifiers.quote(first.table()),
                                "",
                                Identifiers.quote(table.table() + "_pkey"),
                                p1)
                + tables(table)
                + """
                -- the sent records' range for the old table's events, and the log's sequence after them
                DO $outbox$
                DECLARE
                    upper bigint := (SELECT coalesce(max(seq), 0) + 1 FROM %1$s);
                BEGIN
                    EXECUTE format('CREATE TABLE %2$s PARTITION OF %3$s FOR VALUES FROM (MINVALUE) TO (%%s)', upper);
                    PERFORM setval(pg_get_serial_sequence('%4$s', 'seq'), upper, false);
                END
                $outbox$;
                """.formatted(
                        p1, sentRange(table, 1).quoted(), sentTable(table).quoted(), t)
                + """
                -- the events' states go to the side tables; the log keeps what was appended, so the old table
                -- loses its state columns before it joins the log
                INSERT INTO %2$s (id, seq, event_key, status, attempts, last_error, next_attempt_at, type, destination,
                                  created_at)
                SELECT id, seq, event_key, CASE WHEN status = 'failed' THEN 'failed' ELSE 'pending' END, attempts, last_error,
                       next_attempt_at, type, destination, created_at
                  FROM %1$s WHERE status IN ('pending', 'in_flight', 'failed')
                ON CONFLICT DO NOTHING;
                INSERT INTO %3$s (id, seq, sent_at, attempts)
                SELECT id, seq, coalesce(sent_at, created_at), attempts FROM %1$s WHERE status = 'sent'
                ON CONFLICT (id, seq) DO NOTHING;
                ALTER TABLE %1$s DROP COLUMN status, DROP COLUMN attempts, DROP COLUMN last_error,
                    DROP COLUMN leased_at, DROP COLUMN lease_id, DROP COLUMN sent_at;
                """.formatted(p1, stateTable(table).quoted(), sentTable(table).quoted())
                + """
                -- the old table, now holding every event so far, becomes the first range (the tables above left
                -- it out for this)
                DO $outbox$
                DECLARE
                    upper bigint := (SELECT coalesce(max(seq), 0) + 1 FROM %1$s);
                BEGIN
                    EXECUTE format('ALTER TABLE %2$s ATTACH PARTITION %1$s FOR VALUES FROM (MINVALUE) TO (%%s)', upper);
                END
                $outbox$;
                """.formatted(p1, liveTable(table).quoted())
                + SchemaDdl.wakeUp(table, channel, wakeUp)
                + """

                -- every row so far is accounted for above: the log is read from the next transaction on
                INSERT INTO %1$s (done, upto, xact_id, seq) VALUES (pg_current_snapshot(), NULL, '0', 0);
                """.formatted(positionTable(table).quoted());
    }

    /** The log's partition of the ranges of {@code seq} (itself partitioned, by range). */
    public static Identifiers.TableName liveTable(Identifiers.TableName table) {
        return sibling(table, "_live");
    }

    /** The log's partition of the dead letters moved out of a range before it was dropped. */
    public static Identifiers.TableName keptTable(Identifiers.TableName table) {
        return sibling(table, "_kept");
    }

    /** The live log's default partition: rows past the last range (none while ranges are created ahead). */
    public static Identifiers.TableName overflowTable(Identifiers.TableName table) {
        return sibling(table, "_overflow");
    }

    /** The sent table's default partition. */
    public static Identifiers.TableName sentOverflowTable(Identifiers.TableName table) {
        return sibling(table, "_sent_overflow");
    }

    /** The log's range partition number {@code number}. */
    public static Identifiers.TableName range(Identifiers.TableName table, long number) {
        return sibling(table, "_p" + number);
    }

    /** The sent table's partition with the same range as {@link #range}. */
    public static Identifiers.TableName sentRange(Identifiers.TableName table, long number) {
        return sibling(table, "_sent_p" + number);
    }

    /** How far the log has been read. */
    public static Identifiers.TableName positionTable(Identifiers.TableName table) {
        return sibling(table, "_position");
    }

    /** The floor of the log read: every event of a lower sequence has been taken (append-only, trimmed). */
    public static Identifiers.TableName floorTable(Identifiers.TableName table) {
        return sibling(table, "_floor");
    }

    /** In-flight, waiting and dead-lettered events. */
    public static Identifiers.TableName stateTable(Identifiers.TableName table) {
        return sibling(table, "_state");
    }

    /** The state table's partition of the rows that are not parked behind a key ({@code appendlog.ParkingGenerations}). */
    public static Identifiers.TableName stateKept(Identifiers.TableName table) {
        return sibling(table, "_state_kept");
    }

    /** One of the state table's two generations of parked events ({@code appendlog.ParkingGenerations}). */
    public static Identifiers.TableName stateGeneration(Identifiers.TableName table, int generation) {
        return sibling(table, "_state_" + generation);
    }

    /** New events in flight, one row per lease. */
    public static Identifiers.TableName leaseTable(Identifiers.TableName table) {
        return sibling(table, "_lease");
    }

    /** One of the lease table's two generations ({@code appendlog.LeaseGenerations}). */
    public static Identifiers.TableName leaseGeneration(Identifiers.TableName table, int generation) {
        return sibling(table, "_lease_" + generation);
    }

    /** Every event in flight (id, lease id, leased at), from the state and lease tables. */
    public static Identifiers.TableName inFlightView(Identifiers.TableName table) {
        return sibling(table, "_in_flight");
    }

    /** Published events (keep-sent mode). */
    public static Identifiers.TableName sentTable(Identifiers.TableName table) {
        return sibling(table, "_sent");
    }

    /** Every event with the in-place table's columns. */
    public static Identifiers.TableName eventsView(Identifiers.TableName table) {
        return sibling(table, "_events");
    }

    /** The pending events with the in-place table's columns. */
    public static Identifiers.TableName pendingView(Identifiers.TableName table) {
        return sibling(table, "_pending");
    }

    /** The pending events and the dead letters with the in-place table's columns (the per-key backlog). */
    public static Identifiers.TableName waitingView(Identifiers.TableName table) {
        return sibling(table, "_waiting");
    }

    /** The function that fails an append whose event id is already in the log, as a unique violation. */
    public static Identifiers.TableName idTakenFunction(Identifiers.TableName table) {
        return sibling(table, "_id_taken");
    }

    /** Name of the log's position index (plan tests look for it). */
    public static String logIndex(Identifiers.TableName table) {
        return table.table() + "_log_idx";
    }

    /** Drops the layout's tables and views (tests). */
    public static String drop(Identifiers.TableName table) {
        return "DROP VIEW IF EXISTS " + waitingView(table).quoted() + ", "
                + pendingView(table).quoted() + ", "
                + eventsView(table).quoted() + ", " + inFlightView(table).quoted() + ";"
                + " DROP TABLE IF EXISTS " + table.quoted() + ", "
                + positionTable(table).quoted() + ", "
                + stateTable(table).quoted() + ", " + sentTable(table).quoted() + ", "
                + leaseTable(table).quoted()
                + ", " + floorTable(table).quoted() + "; DROP FUNCTION IF EXISTS "
                + idTakenFunction(table).quoted() + "(uuid)";
    }

    static Identifiers.TableName sibling(Identifiers.TableName table, String suffix) {
        return new Identifiers.TableName(table.schema(), table.table() + suffix);
    }
}
