package dev.outboxjava.postgres.internal;

import dev.outboxjava.postgres.WakeUpMode;

/**
 * The DDL of the experimental append-only layout ({@code StoreLayout.APPEND_LOG}) for one outbox table
 * {@code t}. Every statement is idempotent.
 *
 * <ul>
 *   <li>{@code t}: the events, as appended, never updated. Same columns as the in-place table, so the
 *       writer is the same; the status columns keep their appended values and mean nothing here. Read
 *       by position through the index on {@code (xact_id, seq)}.</li>
 *   <li>{@code t_position}: append-only, one row per lease that took new events: how far the log has
 *       been read, as transaction snapshots (see {@link LogLayoutQueries}). The current position is the
 *       row with the greatest id.</li>
 *   <li>{@code t_state}: the events that are waiting (for a retry, a schedule, after a release) or
 *       dead-lettered, and those leased again from it (in flight). Small: an event leaves it when it is
 *       published. Partitioned: the events parked behind their key in two generations,
 *       {@code t_state_0} and {@code t_state_1}, truncated once worked through ({@link ParkingGenerations});
 *       every other row in {@code t_state_kept}.</li>
 *   <li>{@code t_lease}: new events in flight, one row per lease (their ids and keys), so that a
 *       published batch leaves one dead row instead of one per event; a lease whose events do not all
 *       get published is moved into {@code t_state} first, event by event. Partitioned into two
 *       generations, {@code t_lease_0} and {@code t_lease_1}, written in turn and truncated once empty
 *       ({@link LeaseGenerations}), so those dead rows go whatever the horizon.</li>
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

    /** The DDL for {@code table}, with the wake-up trigger created or dropped. */
    public static String render(Identifiers.TableName table, String channel, WakeUpMode wakeUp) {
        return "-- Outbox for Java: the outbox table " + table.display() + " in the experimental append-only layout.\n"
                + logTables(table) + firstRange(table) + sideTables(table) + SchemaDdl.wakeUp(table, channel, wakeUp);
    }

    /**
     * The log and sent tables, partitioned, with their overflow and kept partitions but no range yet.
     * Rows past the last range go to the overflow partitions, so that an insert never fails for want of
     * a partition; {@link LogPartitions} creates the ranges ahead.
     */
    private static String logTables(Identifiers.TableName table) {
        String n = table.table();
        return """
                CREATE TABLE IF NOT EXISTS %1$s (
                    id              uuid        NOT NULL,
                    seq             bigint      GENERATED ALWAYS AS IDENTITY,
                    type            text        NOT NULL,
                    source          text        NOT NULL,
                    event_key       text,
                    destination     text        NOT NULL,
                    routing_key     text        NOT NULL DEFAULT '',
                    content_type    text        NOT NULL,
                    payload         bytea       NOT NULL,
                    headers         jsonb       NOT NULL DEFAULT '{}',
                    status          text        NOT NULL DEFAULT 'pending',
                    attempts        integer     NOT NULL DEFAULT 0,
                    max_attempts    integer     NOT NULL,
                    last_error      text,
                    next_attempt_at timestamptz NOT NULL,
                    created_at      timestamptz NOT NULL,
                    leased_at       timestamptz,
                    lease_id        uuid,
                    sent_at         timestamptz,
                    xact_id         xid8        NOT NULL DEFAULT pg_current_xact_id(),
                    subject         text,
                    data_schema     text,
                    -- true once a dead letter's row was moved out of a range about to be dropped
                    kept            boolean     NOT NULL DEFAULT false,
                    CONSTRAINT %2$s PRIMARY KEY (id, seq, kept)
                ) PARTITION BY LIST (kept);
                -- The lease reads new events by position: transaction, then sequence (one index per partition).
                CREATE INDEX IF NOT EXISTS %3$s ON %1$s (xact_id, seq);
                CREATE TABLE IF NOT EXISTS %4$s PARTITION OF %1$s FOR VALUES IN (false) PARTITION BY RANGE (seq);
                CREATE TABLE IF NOT EXISTS %5$s PARTITION OF %1$s FOR VALUES IN (true);
                CREATE TABLE IF NOT EXISTS %6$s PARTITION OF %4$s DEFAULT;

                -- One row per published event, partitioned like the log so that a range's records go with it.
                CREATE TABLE IF NOT EXISTS %7$s (
                    id       uuid        NOT NULL,
                    seq      bigint      NOT NULL,
                    sent_at  timestamptz NOT NULL,
                    attempts integer     NOT NULL DEFAULT 0,
                    CONSTRAINT %8$s PRIMARY KEY (id, seq)
                ) PARTITION BY RANGE (seq);
                CREATE INDEX IF NOT EXISTS %9$s ON %7$s (sent_at);
                CREATE TABLE IF NOT EXISTS %10$s PARTITION OF %7$s DEFAULT;
                """.formatted(
                        table.quoted(),
                        Identifiers.quote(n + "_pkey"),
                        Identifiers.quote(n + "_log_idx"),
                        liveTable(table).quoted(),
                        keptTable(table).quoted(),
                        overflowTable(table).quoted(),
                        sentTable(table).quoted(),
                        Identifiers.quote(n + "_sent_pkey"),
                        Identifiers.quote(n + "_sent_idx"),
                        sentOverflowTable(table).quoted());
    }

    /** The first range, from the lowest sequence, when the log has none (a new table). */
    private static String firstRange(Identifiers.TableName table) {
        return """
                DO $outbox$
                BEGIN
                    IF NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhparent = '%1$s'::regclass
                                      AND inhrelid <> '%2$s'::regclass) THEN
                        CREATE TABLE %3$s PARTITION OF %1$s FOR VALUES FROM (MINVALUE) TO (%5$d);
                        CREATE TABLE %4$s PARTITION OF %6$s FOR VALUES FROM (MINVALUE) TO (%5$d);
                    END IF;
                END
                $outbox$;
                """.formatted(
                        liveTable(table).quoted(),
                        overflowTable(table).quoted(),
                        range(table, 1).quoted(),
                        sentRange(table, 1).quoted(),
                        LogPartitions.FIRST_UPPER,
                        sentTable(table).quoted());
    }

    /** Position, state and lease tables and the views. */
    private static String sideTables(Identifiers.TableName table) {
        String t = table.quoted();
        String n = table.table();
        return """

                -- done: every event whose transaction this snapshot sees has been taken; upto: the snapshot
                -- being worked through (NULL when none), whose events up to (xact_id, seq) have been taken.
                CREATE TABLE IF NOT EXISTS %5$s (
                    id      bigint       GENERATED ALWAYS AS IDENTITY,
                    done    pg_snapshot  NOT NULL,
                    upto    pg_snapshot,
                    xact_id xid8         NOT NULL,
                    seq     bigint       NOT NULL,
                    CONSTRAINT %6$s PRIMARY KEY (id)
                );

                -- A state table made unpartitioned is replaced, its rows kept: renamed here, copied below.
                DO $outbox$
                BEGIN
                    IF EXISTS (SELECT 1 FROM pg_class WHERE oid = to_regclass('%7$s') AND relkind = 'r') THEN
                        ALTER TABLE %7$s RENAME TO %32$s;
                        ALTER TABLE %33$s RENAME CONSTRAINT %8$s TO %34$s;
                        DROP INDEX IF EXISTS %10$s, %11$s, %12$s, %18$s, %24$s, %25$s, %26$s;
                    END IF;
                END
                $outbox$;
                -- Partitioned by generation: the rows of events parked behind their key go to the generation
                -- being written, truncated once worked through; every other row to the kept partition.
                CREATE TABLE IF NOT EXISTS %7$s (
                    id              uuid        NOT NULL,
                    seq             bigint      NOT NULL,
                    event_key       text,
                    status          text        NOT NULL,
                    attempts        integer     NOT NULL DEFAULT 0,
                    last_error      text,
                    next_attempt_at timestamptz NOT NULL,
                    leased_at       timestamptz,
                    lease_id        uuid,
                    -- copied from the log, so that the operator's dead-letter filters read the state table alone
                    type            text,
                    destination     text,
                    created_at      timestamptz,
                    gen             smallint    NOT NULL DEFAULT %38$s,
                    CONSTRAINT %8$s PRIMARY KEY (id, gen),
                    CONSTRAINT %9$s CHECK (status IN ('pending', 'in_flight', 'failed'))
                ) PARTITION BY LIST (gen);
                CREATE TABLE IF NOT EXISTS %35$s PARTITION OF %7$s FOR VALUES IN (%38$s);
                CREATE TABLE IF NOT EXISTS %36$s PARTITION OF %7$s FOR VALUES IN (0);
                CREATE TABLE IF NOT EXISTS %37$s PARTITION OF %7$s FOR VALUES IN (1);
                -- a state table created without the copied columns gets them (checked first: ALTER TABLE would
                -- queue for its lock behind any open transaction that read the table, and the relays behind it)
                DO $outbox$
                BEGIN
                    IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '%7$s'::regclass
                                      AND attname = 'created_at' AND NOT attisdropped) THEN
                        ALTER TABLE %7$s ADD COLUMN type text, ADD COLUMN destination text,
                            ADD COLUMN created_at timestamptz;
                        UPDATE %7$s s SET type = e.type, destination = e.destination, created_at = e.created_at
                          FROM %2$s e WHERE e.id = s.id AND e.seq = s.seq;
                    END IF;
                END
                $outbox$;
                CREATE INDEX IF NOT EXISTS %10$s ON %7$s (seq, next_attempt_at) WHERE status = 'pending';
                CREATE INDEX IF NOT EXISTS %11$s ON %7$s (leased_at) WHERE status = 'in_flight';
                CREATE INDEX IF NOT EXISTS %12$s ON %7$s (seq) WHERE status = 'failed';
                -- Per-key ordering: the events of a key that hold it back (and the operator's key filter).
                CREATE INDEX IF NOT EXISTS %18$s ON %7$s (event_key, seq) WHERE event_key IS NOT NULL;
                -- The operator's dead-letter filters: only the matching dead letters are read, in sequence order.
                CREATE INDEX IF NOT EXISTS %24$s ON %7$s (type, seq) WHERE status = 'failed';
                CREATE INDEX IF NOT EXISTS %25$s ON %7$s (destination, seq) WHERE status = 'failed';
                CREATE INDEX IF NOT EXISTS %26$s ON %7$s (created_at, seq) WHERE status = 'failed';

                DO $outbox$
                BEGIN
                    IF to_regclass('%33$s') IS NOT NULL THEN
                        INSERT INTO %7$s (id, seq, event_key, status, attempts, last_error, next_attempt_at, leased_at,
                                          lease_id, type, destination, created_at)
                        SELECT o.id, o.seq, o.event_key, o.status, o.attempts, o.last_error, o.next_attempt_at,
                               o.leased_at, o.lease_id, e.type, e.destination, e.created_at
                          FROM %33$s o LEFT JOIN %2$s e ON e.id = o.id AND e.seq = o.seq;
                        DROP TABLE %33$s CASCADE;
                    END IF;
                END
                $outbox$;

                -- Every event of a lower sequence has been taken by the position: the lease skips the partitions below.
                CREATE TABLE IF NOT EXISTS %23$s (
                    id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    seq bigint NOT NULL
                );

                -- New events in flight, one row per lease: a published batch leaves one dead row, not one per event.
                -- Two generations written in turn, each truncated once empty: those rows go whatever the horizon.
                -- (A lease table made unpartitioned is replaced, its rows kept: they are leases in flight.)
                DO $outbox$
                BEGIN
                    IF EXISTS (SELECT 1 FROM pg_class WHERE oid = to_regclass('%20$s') AND relkind = 'r') THEN
                        ALTER TABLE %20$s RENAME TO %27$s;
                        ALTER TABLE %28$s RENAME CONSTRAINT %21$s TO %29$s;
                    END IF;
                END
                $outbox$;
                CREATE TABLE IF NOT EXISTS %20$s (
                    gen       smallint    NOT NULL,
                    lease_id  uuid        NOT NULL,
                    leased_at timestamptz NOT NULL,
                    ids       uuid[]      NOT NULL,
                    keys      text[]      NOT NULL,
                    -- the events' sequences, in the order of ids: their log and sent partitions
                    seqs      bigint[]    NOT NULL,
                    CONSTRAINT %21$s PRIMARY KEY (lease_id, gen)
                ) PARTITION BY LIST (gen);
                CREATE TABLE IF NOT EXISTS %30$s PARTITION OF %20$s FOR VALUES IN (0);
                CREATE TABLE IF NOT EXISTS %31$s PARTITION OF %20$s FOR VALUES IN (1);
                DO $outbox$
                BEGIN
                    IF to_regclass('%28$s') IS NOT NULL THEN
                        INSERT INTO %20$s (gen, lease_id, leased_at, ids, keys, seqs)
                        SELECT 0, lease_id, leased_at, ids, keys, seqs FROM %28$s;
                        DROP TABLE %28$s CASCADE;
                    END IF;
                END
                $outbox$;

                -- Every event in flight: leased again from the state table, or new in a lease row.
                CREATE OR REPLACE VIEW %22$s AS
                SELECT id, lease_id, leased_at, seq FROM %7$s WHERE status = 'in_flight'
                UNION ALL
                SELECT x.id, l.lease_id, l.leased_at, x.seq FROM %20$s l, unnest(l.ids, l.seqs) AS x(id, seq);

                CREATE OR REPLACE VIEW %16$s AS
                SELECT e.id, e.seq, e.type, e.source, e.event_key, e.destination, e.routing_key, e.content_type,
                       e.payload, e.headers,
                       coalesce(s.status, CASE WHEN f.id IS NOT NULL THEN 'in_flight'
                                               WHEN d.id IS NOT NULL THEN 'sent' ELSE 'pending' END) AS status,
                       coalesce(s.attempts, d.attempts, 0) AS attempts, e.max_attempts, s.last_error,
                       coalesce(s.next_attempt_at, e.next_attempt_at) AS next_attempt_at, e.created_at,
                       coalesce(s.leased_at, f.leased_at) AS leased_at, coalesce(s.lease_id, f.lease_id) AS lease_id,
                       d.sent_at, e.subject, e.data_schema
                  FROM %2$s e LEFT JOIN %7$s s ON s.id = e.id LEFT JOIN %13$s d ON d.id = e.id AND d.seq = e.seq
                  LEFT JOIN (SELECT x.id, l.lease_id, l.leased_at FROM %20$s l, unnest(l.ids) AS x(id)) f ON f.id = e.id;

                CREATE OR REPLACE VIEW %17$s AS
                SELECT e.id, e.seq, e.type, e.source, e.event_key, e.destination, e.routing_key, e.content_type,
                       e.payload, e.headers, 'pending'::text AS status, 0 AS attempts, e.max_attempts,
                       NULL::text AS last_error, e.next_attempt_at, e.created_at, NULL::timestamptz AS leased_at,
                       NULL::uuid AS lease_id, NULL::timestamptz AS sent_at, e.subject, e.data_schema
                  FROM %2$s e,
                       ((SELECT done, upto, xact_id, seq FROM %5$s ORDER BY id DESC LIMIT 1)
                         UNION ALL SELECT '1:1:'::pg_snapshot, NULL, '0'::xid8, 0 LIMIT 1) p
                 WHERE e.xact_id >= pg_snapshot_xmin(p.done)
                   AND NOT pg_visible_in_snapshot(e.xact_id, p.done)
                   AND NOT (p.upto IS NOT NULL AND pg_visible_in_snapshot(e.xact_id, p.upto)
                            AND (e.xact_id, e.seq) <= (p.xact_id, p.seq))
                UNION ALL
                SELECT e.id, e.seq, e.type, e.source, e.event_key, e.destination, e.routing_key, e.content_type,
                       e.payload, e.headers, s.status, s.attempts, e.max_attempts, s.last_error,
                       s.next_attempt_at, e.created_at, s.leased_at, s.lease_id, NULL::timestamptz, e.subject,
                       e.data_schema
                  FROM %7$s s JOIN %2$s e ON e.id = s.id AND e.seq = s.seq
                 WHERE s.status = 'pending';

                -- The pending events and the dead letters: what the per-key backlog looks at.
                CREATE OR REPLACE VIEW %19$s AS
                SELECT * FROM %17$s
                UNION ALL
                SELECT e.id, e.seq, e.type, e.source, e.event_key, e.destination, e.routing_key, e.content_type,
                       e.payload, e.headers, s.status, s.attempts, e.max_attempts, s.last_error,
                       s.next_attempt_at, e.created_at, s.leased_at, s.lease_id, NULL::timestamptz, e.subject,
                       e.data_schema
                  FROM %7$s s JOIN %2$s e ON e.id = s.id AND e.seq = s.seq
                 WHERE s.status = 'failed';
                """.formatted(
                        table.display(),
                        t,
                        Identifiers.quote(n + "_pkey"),
                        Identifiers.quote(n + "_log_idx"),
                        positionTable(table).quoted(),
                        Identifiers.quote(n + "_position_pkey"),
                        stateTable(table).quoted(),
                        Identifiers.quote(n + "_state_pkey"),
                        Identifiers.quote(n + "_state_status_check"),
                        Identifiers.quote(n + "_state_pending_idx"),
                        Identifiers.quote(n + "_state_in_flight_idx"),
                        Identifiers.quote(n + "_state_failed_idx"),
                        sentTable(table).quoted(),
                        Identifiers.quote(n + "_sent_pkey"),
                        Identifiers.quote(n + "_sent_idx"),
                        eventsView(table).quoted(),
                        pendingView(table).quoted(),
                        Identifiers.quote(n + "_state_key_idx"),
                        waitingView(table).quoted(),
                        leaseTable(table).quoted(),
                        Identifiers.quote(n + "_lease_pkey"),
                        inFlightView(table).quoted(),
                        floorTable(table).quoted(),
                        Identifiers.quote(n + "_state_dl_type_idx"),
                        Identifiers.quote(n + "_state_dl_dest_idx"),
                        Identifiers.quote(n + "_state_dl_created_idx"),
                        Identifiers.quote(n + "_lease_unpartitioned"),
                        sibling(table, "_lease_unpartitioned").quoted(),
                        Identifiers.quote(n + "_lease_unpartitioned_pkey"),
                        leaseGeneration(table, 0).quoted(),
                        leaseGeneration(table, 1).quoted(),
                        Identifiers.quote(n + "_state_unpartitioned"),
                        sibling(table, "_state_unpartitioned").quoted(),
                        Identifiers.quote(n + "_state_unpartitioned_pkey"),
                        stateKept(table).quoted(),
                        stateGeneration(table, 0).quoted(),
                        stateGeneration(table, 1).quoted(),
                        ParkingGenerations.KEPT);
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
                + logTables(table)
                + """
                DO $outbox$
                DECLARE
                    upper bigint := (SELECT coalesce(max(seq), 0) + 1 FROM %1$s);
                BEGIN
                    EXECUTE format('ALTER TABLE %2$s ATTACH PARTITION %1$s FOR VALUES FROM (MINVALUE) TO (%%s)', upper);
                    EXECUTE format('CREATE TABLE %3$s PARTITION OF %4$s FOR VALUES FROM (MINVALUE) TO (%%s)', upper);
                    PERFORM setval(pg_get_serial_sequence('%5$s', 'seq'), upper, false);
                END
                $outbox$;
                """.formatted(
                                p1,
                                liveTable(table).quoted(),
                                sentRange(table, 1).quoted(),
                                sentTable(table).quoted(),
                                t)
                + firstRange(table)
                + sideTables(table)
                + SchemaDdl.wakeUp(table, channel, wakeUp)
                + """

                INSERT INTO %2$s (id, seq, event_key, status, attempts, last_error, next_attempt_at, type, destination,
                                  created_at)
                SELECT id, seq, event_key, CASE WHEN status = 'failed' THEN 'failed' ELSE 'pending' END, attempts, last_error,
                       next_attempt_at, type, destination, created_at
                  FROM %1$s WHERE status IN ('pending', 'in_flight', 'failed')
                ON CONFLICT DO NOTHING;
                INSERT INTO %3$s (id, seq, sent_at, attempts)
                SELECT id, seq, coalesce(sent_at, created_at), attempts FROM %1$s WHERE status = 'sent'
                ON CONFLICT (id, seq) DO NOTHING;
                -- every row so far is accounted for above: the log is read from the next transaction on
                INSERT INTO %4$s (done, upto, xact_id, seq) VALUES (pg_current_snapshot(), NULL, '0', 0);
                """.formatted(
                                p1,
                                stateTable(table).quoted(),
                                sentTable(table).quoted(),
                                positionTable(table).quoted());
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

    /** The state table's partition of the rows that are not parked behind a key ({@link ParkingGenerations}). */
    public static Identifiers.TableName stateKept(Identifiers.TableName table) {
        return sibling(table, "_state_kept");
    }

    /** One of the state table's two generations of parked events ({@link ParkingGenerations}). */
    public static Identifiers.TableName stateGeneration(Identifiers.TableName table, int generation) {
        return sibling(table, "_state_" + generation);
    }

    /** New events in flight, one row per lease. */
    public static Identifiers.TableName leaseTable(Identifiers.TableName table) {
        return sibling(table, "_lease");
    }

    /** One of the lease table's two generations ({@link LeaseGenerations}). */
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
                + ", " + floorTable(table).quoted();
    }

    static Identifiers.TableName sibling(Identifiers.TableName table, String suffix) {
        return new Identifiers.TableName(table.schema(), table.table() + suffix);
    }
}
