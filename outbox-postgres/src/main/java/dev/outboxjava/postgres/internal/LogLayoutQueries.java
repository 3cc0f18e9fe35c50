package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.DeadLetterSelector;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.RetryMark;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * The statements of the experimental append-only layout ({@link LogLayoutDdl}): an event's row in the
 * log is never changed, so a transaction that holds back vacuum leaves no dead entries where the lease
 * reads.
 *
 * <p><b>Leasing.</b> One short transaction, one leaser at a time per table (a transaction-scoped
 * advisory lock), because the position it advances is shared. It first takes due events from the
 * state table (retries, released, requeued, scheduled events that fell due), oldest first, then new
 * events from the log, the way PgQ cuts batches: the position is a transaction snapshot {@code done}
 * (every event whose transaction it sees has been taken) and, while a lease's limit cuts the work short,
 * the snapshot {@code upto} being worked through and the last event taken of it. New events are those
 * whose transaction {@code upto} sees and {@code done} does not: transactions in progress when
 * {@code done} was taken (its {@code xip} list, looked up by index) and those begun since (an index range
 * from {@code done}'s {@code xmax}), in {@code (xact_id, seq)} order. A transaction still open is seen by
 * neither, so its events come in a later snapshot, whatever their sequence: commit-order safe, and a
 * long writing transaction holds back only its own events. The reads are index scans over rows that are
 * never updated, starting where the position is; their work depends on the batch, not on the history
 * or on what vacuum could not remove. The new events leased get one row together in the lease table (a
 * new event not yet due, or held behind its key, gets a pending state row) and a row is appended to
 * the position table.
 *
 * <p><b>Marks.</b> Fenced by lease id. A lease row whose events are all published is deleted and its
 * events appended to the sent table in one statement: one dead row per batch under a held horizon. In
 * both completion modes: deleting on publish, an event with a sent record is gone to every reader, and
 * its rows go when {@link LogPartitions} drops its partition (log rows are never deleted one by one).
 * Any other outcome first moves the lease row's events into the state table as in-flight rows of the
 * same lease; there, found by primary key, published deletes the state row and retry, dead letter and
 * release update it. The sweeper moves expired lease rows the same way before it sweeps.
 *
 * <p>The lease transaction commits asynchronously, as {@link LeaseQuery}'s does, for the same reasons.
 */
public final class LogLayoutQueries {

    private static final String LOCK_SQL = "SELECT pg_advisory_xact_lock(?), " + AsyncCommit.FOR_THIS_TRANSACTION;
    private static final int PURGE_CHUNK = HousekeepingQueries.PURGE_CHUNK;

    /** Log columns ({@code e}) and state columns ({@code s}) in {@link EventRows#COLUMNS}' order. */
    private static final String STATE_EVENT_COLUMNS = "e.id, e.seq, e.type, e.source, e.event_key, e.destination,"
            + " e.routing_key, e.content_type, e.payload, e.headers, s.status, s.attempts, e.max_attempts,"
            + " s.last_error, s.next_attempt_at, e.created_at, s.leased_at, s.lease_id, NULL::timestamptz,"
            + " e.subject, e.data_schema";

    private final long advisoryLockKey;
    private final boolean perKey;
    private final CompletionMode completionMode;
    private final String retryLeaseSql;
    private final String positionSql;
    private final String freshLeaseSql;
    private final String advanceSql;
    private final String publishedSql;
    private final String publishedLeaseSql;
    private final String materializeLeaseSql;
    private final String materializeExpiredSql;
    private final String trimPositionsSql;
    private final String purgeSentSql;
    private final String purgeFailedSql;
    private final String countsSql;
    private final String oldestPendingSql;
    private final String findSql;
    private final String deadLettersSql;
    private final String retryingSql;
    private final String countRetryingSql;
    private final String countCreatedBeforeSql;
    private final String requeueSql;
    private final String requeueByTypeSql;
    private final String probeSql;
    private final MarkQueries stateMarks;
    private final HousekeepingQueries stateHousekeeping;
    private final BacklogQuery backlog;
    private final LogPartitions partitions;

    public LogLayoutQueries(Identifiers.TableName table, CompletionMode completionMode) {
        this(table, completionMode, Ordering.none());
    }

    /**
     * The statements for a table; under per-key ordering a lease also leaves for later, as pending state
     * rows, the events whose key an earlier event holds (in flight, waiting for a retry or a schedule, or
     * dead-lettered when the ordering holds keys). The keys are looked up in the state and lease tables,
     * never in the log.
     */
    public LogLayoutQueries(Identifiers.TableName table, CompletionMode completionMode, Ordering ordering) {
        this.perKey = ordering.isPerKey();
        this.advisoryLockKey = ("outbox-log-lease:" + table.display()).hashCode() * 0x9E3779B97F4A7C15L;
        this.completionMode = completionMode;
        String t = table.quoted();
        String s = LogLayoutDdl.stateTable(table).quoted();
        String p = LogLayoutDdl.positionTable(table).quoted();
        String d = LogLayoutDdl.sentTable(table).quoted();
        String events = LogLayoutDdl.eventsView(table).quoted();
        String pending = LogLayoutDdl.pendingView(table).quoted();
        String l = LogLayoutDdl.leaseTable(table).quoted();
        String inFlight = LogLayoutDdl.inFlightView(table).quoted();
        // the keys of the new events in flight, gathered once per statement (a hashed lookup per candidate)
        String leasedKeys = "(SELECT unnest(lk.keys) FROM " + l + " lk)";
        this.retryLeaseSql = """
                WITH r AS (
                  UPDATE %2$s SET status = 'in_flight', lease_id = ?, leased_at = ?
                   WHERE id IN (SELECT c.id FROM %2$s c WHERE c.status = 'pending' AND c.next_attempt_at <= ?%4$s
                                 ORDER BY c.seq LIMIT ? FOR UPDATE SKIP LOCKED)
                  RETURNING id, seq, status, attempts, last_error, next_attempt_at, leased_at, lease_id)
                SELECT %3$s FROM r s JOIN %1$s e ON e.id = s.id AND e.seq = s.seq
                """.formatted(
                t,
                s,
                STATE_EVENT_COLUMNS,
                perKey
                        ? """

                                   AND (c.event_key IS NULL OR (c.event_key NOT IN %3$s AND NOT EXISTS (
                                        SELECT 1 FROM %1$s b WHERE b.event_key = c.event_key AND b.seq < c.seq
                                           AND (b.status = 'in_flight' OR (b.status = 'pending' AND b.next_attempt_at > ?)%2$s))))\
                """.formatted(s, ordering.deadLetterHoldsKey() ? " OR b.status = 'failed'" : "", leasedKeys)
                        : "");
        this.positionSql = """
                SELECT p.done::text, coalesce(p.upto, pg_current_snapshot())::text, p.upto IS NULL,
                       p.xact_id::text, p.seq, ARRAY(SELECT pg_snapshot_xip(p.done))::text,
                       pg_snapshot_xmax(p.done)::text, pg_snapshot_xmax(coalesce(p.upto, pg_current_snapshot()))::text,
                       coalesce((SELECT f.seq FROM %2$s f ORDER BY f.id DESC LIMIT 1), -9223372036854775808)
                  FROM ((SELECT done, upto, xact_id, seq FROM %1$s ORDER BY id DESC LIMIT 1)
                        UNION ALL SELECT '1:1:'::pg_snapshot, NULL, '0'::xid8, 0 LIMIT 1) p
                """.formatted(p, LogLayoutDdl.floorTable(table).quoted());
        String logColumns = "id, seq, type, source, event_key, destination, routing_key, content_type, payload,"
                + " headers, max_attempts, next_attempt_at, created_at, subject, data_schema, xact_id";
        this.freshLeaseSql = """
                WITH f AS (
                  (SELECT %4$s FROM %1$s
                    WHERE xact_id = ANY(?::text::xid8[]) AND (xact_id, seq) > (?::text::xid8, ?)
                      AND pg_visible_in_snapshot(xact_id, ?::text::pg_snapshot) AND seq >= ? AND NOT kept
                    ORDER BY xact_id, seq LIMIT ?)
                  UNION ALL
                  (SELECT %4$s FROM %1$s
                    WHERE (xact_id, seq) > (?::text::xid8, ?) AND xact_id < ?::text::xid8
                      AND pg_visible_in_snapshot(xact_id, ?::text::pg_snapshot) AND seq >= ? AND NOT kept
                    ORDER BY xact_id, seq LIMIT ?)
                  ORDER BY xact_id, seq LIMIT ?),
                v AS (SELECT ?::uuid AS lease_id, ?::timestamptz AS at),
                g AS (SELECT f.*, %5$s AS lease_it FROM f, v),
                st AS (
                  INSERT INTO %2$s (id, seq, event_key, status, attempts, next_attempt_at)
                  SELECT g.id, g.seq, g.event_key, 'pending', 0, g.next_attempt_at FROM g WHERE NOT g.lease_it
                  RETURNING 1),
                lt AS (
                  INSERT INTO %6$s (lease_id, leased_at, ids, keys, seqs)
                  SELECT v.lease_id, v.at, array_agg(g.id ORDER BY g.seq),
                         coalesce(array_agg(DISTINCT g.event_key) FILTER (WHERE g.event_key IS NOT NULL), '{}'),
                         array_agg(g.seq ORDER BY g.seq)
                    FROM g, v WHERE g.lease_it GROUP BY v.lease_id, v.at
                  ON CONFLICT (lease_id) DO UPDATE SET ids = %6$s.ids || excluded.ids,
                                                       keys = %6$s.keys || excluded.keys,
                                                       seqs = %6$s.seqs || excluded.seqs
                  RETURNING 1),
                -- the writes are joined in so that they run inside the statement's plan (EXPLAIN counts them)
                w AS (SELECT (SELECT count(*) FROM st) + (SELECT count(*) FROM lt) AS written)
                SELECT g.id, g.seq, g.type, g.source, g.event_key, g.destination, g.routing_key, g.content_type,
                       g.payload, g.headers, 'in_flight', 0, g.max_attempts, NULL::text, g.next_attempt_at,
                       g.created_at, v.at, v.lease_id, NULL::timestamptz, g.subject, g.data_schema,
                       g.xact_id::text, g.lease_it
                  FROM g, v, w WHERE w.written >= 0
                 ORDER BY g.xact_id, g.seq
                """.formatted(
                t,
                s,
                p,
                logColumns,
                perKey
                        ? """
                (f.next_attempt_at <= v.at AND (f.event_key IS NULL OR (
                   f.event_key NOT IN %3$s
                   AND NOT EXISTS (SELECT 1 FROM %1$s h WHERE h.event_key = f.event_key
                                  AND (h.status IN ('in_flight', 'pending')%2$s))
                   AND NOT EXISTS (SELECT 1 FROM f e WHERE e.event_key = f.event_key
                                      AND (e.xact_id, e.seq) < (f.xact_id, f.seq) AND e.next_attempt_at > v.at))))\
                """.formatted(s, ordering.deadLetterHoldsKey() ? " OR h.status = 'failed'" : "", leasedKeys)
                        : "f.next_attempt_at <= v.at",
                l);
        this.advanceSql = "INSERT INTO " + p + " (done, upto, xact_id, seq)"
                + " VALUES (?::text::pg_snapshot, ?::text::pg_snapshot, ?::text::xid8, ?)";
        String heldBy = "DELETE FROM " + s + " WHERE id = ANY(?) AND lease_id = ? AND status || '' = 'in_flight'";
        // a whole lease row published: one statement, one dead row
        // (deleting on publish too: the sent records say which events are gone until their partition is dropped)
        this.publishedLeaseSql = "WITH x AS (DELETE FROM " + l + " WHERE lease_id = ? AND ids <@ ?"
                + " RETURNING ids, seqs) "
                + "INSERT INTO " + d + " (id, seq, sent_at, attempts) SELECT u.id, u.seq, ?, 0"
                + " FROM x, unnest(x.ids, x.seqs) AS u(id, seq) RETURNING id";
        // anything else: the lease's events become in-flight state rows, which the marks then update
        String materialize = """
                INSERT INTO %2$s (id, seq, event_key, status, attempts, next_attempt_at, lease_id, leased_at)
                SELECT e.id, e.seq, e.event_key, 'in_flight', 0, e.next_attempt_at, x.lease_id, x.leased_at
                  FROM x, unnest(x.ids, x.seqs) AS u(id, seq) JOIN %1$s e ON e.id = u.id AND e.seq = u.seq
                """.formatted(t, s);
        this.materializeLeaseSql = "WITH x AS (DELETE FROM " + l + " WHERE lease_id = ? RETURNING *) " + materialize;
        this.materializeExpiredSql = "WITH x AS (DELETE FROM " + l + " WHERE lease_id IN (SELECT lease_id FROM " + l
                + " WHERE leased_at < ? ORDER BY leased_at LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING *) " + materialize;
        this.publishedSql = "WITH x AS (" + heldBy + " RETURNING id, seq, attempts) INSERT INTO " + d
                + " (id, seq, sent_at, attempts) SELECT id, seq, ?, attempts FROM x RETURNING id";
        this.trimPositionsSql = "DELETE FROM " + p + " WHERE id < (SELECT max(id) FROM " + p + ")";
        String purge = """
                WITH v AS (SELECT x.id FROM %2$s x JOIN %1$s e ON e.id = x.id WHERE e.created_at < ?%3$s
                            LIMIT %4$d FOR UPDATE OF x SKIP LOCKED),
                x AS (DELETE FROM %2$s WHERE id IN (SELECT id FROM v) RETURNING id),
                y AS (DELETE FROM %1$s WHERE id IN (SELECT id FROM x))
                SELECT count(*) FROM x
                """;
        this.purgeSentSql = purge.formatted(t, d, "", PURGE_CHUNK);
        this.purgeFailedSql = purge.formatted(t, s, " AND x.status = 'failed'", PURGE_CHUNK);
        boolean deleteOnPublish = completionMode == CompletionMode.DELETE_ON_PUBLISH;
        // deleting on publish, an event with a sent record is gone (its rows go with its partition)
        this.countsSql = "SELECT (SELECT count(*) FROM " + pending + "),"
                + " (SELECT count(*) FROM " + inFlight + "),"
                + (deleteOnPublish ? " 0," : " (SELECT count(*) FROM " + d + "),")
                + " (SELECT count(*) FROM " + s + " WHERE status = 'failed')";
        this.oldestPendingSql = "SELECT min(created_at) FROM " + pending;
        this.findSql = "SELECT " + EventRows.COLUMNS + " FROM " + events + " WHERE id = ?"
                + (deleteOnPublish ? " AND status <> 'sent'" : "");
        this.deadLettersSql = "SELECT " + STATE_EVENT_COLUMNS + " FROM " + s + " s JOIN " + t
                + " e ON e.id = s.id AND e.seq = s.seq WHERE s.status = 'failed' ORDER BY s.seq OFFSET ? LIMIT ?";
        this.retryingSql = "SELECT " + STATE_EVENT_COLUMNS + " FROM " + s + " s JOIN " + t
                + " e ON e.id = s.id AND e.seq = s.seq WHERE s.status = 'pending' AND s.attempts > 0"
                + " ORDER BY s.next_attempt_at, s.seq OFFSET ? LIMIT ?";
        this.countRetryingSql = "SELECT count(*) FROM " + s + " WHERE status = 'pending' AND attempts > 0";
        this.countCreatedBeforeSql = "SELECT count(*) FROM " + events + " WHERE status = ? AND created_at < ?";
        this.requeueSql = "UPDATE " + s + " AS s SET status = 'pending', attempts = 0, next_attempt_at = ?,"
                + " lease_id = NULL, leased_at = NULL WHERE s.status = 'failed'";
        this.requeueByTypeSql = requeueSql + " AND EXISTS (SELECT 1 FROM " + t
                + " e WHERE e.id = s.id AND e.seq = s.seq AND e.type = ?)";
        this.probeSql = "SELECT 1 FROM " + t + " WHERE false";
        OutboxTable state = new OutboxTable(LogLayoutDdl.stateTable(table));
        this.stateMarks = new MarkQueries(state, CompletionMode.KEEP_SENT);
        this.stateHousekeeping = new HousekeepingQueries(state);
        // per key, the backlog also needs the dead letters (which may hold keys)
        this.partitions = new LogPartitions(table, completionMode);
        this.backlog = perKey
                ? new BacklogQuery(new OutboxTable(LogLayoutDdl.waitingView(table)), ordering)
                : new BacklogQuery(new OutboxTable(LogLayoutDdl.pendingView(table)), Ordering.none());
    }

    /** The log read of the lease, to EXPLAIN; bind it with {@link #bindFresh}. */
    public String freshLeaseSql() {
        return freshLeaseSql;
    }

    /** The position read of the lease, to EXPLAIN. No binds. */
    public String positionSql() {
        return positionSql;
    }

    /** The state-table read of the lease, to EXPLAIN. Binds: lease id, now, now, limit. */
    public String retryLeaseSql() {
        return retryLeaseSql;
    }

    /** Leases up to {@code limit} events in one short transaction; they come back in sequence order. */
    public List<OutboxEvent> lease(Connection connection, UUID leaseId, int limit, Instant now) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        if (autoCommit) {
            connection.setAutoCommit(false);
        }
        try {
            try (PreparedStatement lock = connection.prepareStatement(LOCK_SQL)) {
                lock.setLong(1, advisoryLockKey);
                lock.execute();
            }
            OffsetDateTime at = Jdbc.timestamptz(now);
            List<OutboxEvent> events = new ArrayList<>();
            try (PreparedStatement statement = connection.prepareStatement(retryLeaseSql)) {
                int p = 1;
                statement.setObject(p++, leaseId);
                statement.setObject(p++, at);
                statement.setObject(p++, at);
                if (perKey) {
                    statement.setObject(p++, at);
                }
                statement.setInt(p, limit);
                readInto(statement, events);
            }
            // a second round when the first finished its snapshot: the events committed since are taken at once
            for (int round = 0; round < 2 && events.size() < limit; round++) {
                Position position = readPosition(connection);
                int wanted = limit - events.size();
                Taken taken;
                try (PreparedStatement statement = connection.prepareStatement(freshLeaseSql)) {
                    bindFresh(statement, position, leaseId, now, wanted);
                    taken = readFresh(statement, events);
                }
                boolean finished = taken.count() < wanted;
                if (taken.count() == 0 && !position.started()) {
                    break; // nothing new: the position stays (no row per empty lease)
                }
                try (PreparedStatement statement = connection.prepareStatement(advanceSql)) {
                    statement.setString(1, finished ? position.upto() : position.done());
                    statement.setString(2, finished ? null : position.upto());
                    statement.setString(3, finished ? "0" : taken.lastXact());
                    statement.setLong(4, finished ? 0 : taken.lastSeq());
                    statement.executeUpdate();
                }
                if (!finished) {
                    break;
                }
            }
            connection.commit();
            events.sort(Comparator.comparingLong(OutboxEvent::sequence));
            return Collections.unmodifiableList(events);
        } catch (SQLException | RuntimeException | Error e) {
            try {
                connection.rollback();
            } catch (SQLException rollbackFailure) {
                e.addSuppressed(rollbackFailure);
            }
            throw e;
        } finally {
            if (autoCommit) {
                try {
                    connection.setAutoCommit(true);
                } catch (SQLException ignored) {
                    // the connection is broken; the pool discards it
                }
            }
        }
    }

    /**
     * Where the log has been read to: {@code done} (every event its snapshot sees is taken) and {@code upto},
     * the snapshot being worked through (a fresh one when the last lease finished its own), with the
     * last event taken of it ({@code started}: whether that snapshot was already in use); {@code floor}:
     * every event of a lower sequence has been taken (see {@link LogPartitions}), so the partitions below
     * it are left out of the log read.
     */
    public record Position(
            String done,
            String upto,
            boolean started,
            String lastXact,
            long lastSeq,
            String doneXip,
            String doneXmax,
            String uptoXmax,
            long floor) {}

    /** Reads the position (in the lease's transaction, under its lock). */
    public Position readPosition(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(positionSql);
                ResultSet rs = statement.executeQuery()) {
            rs.next();
            boolean started = !rs.getBoolean(3);
            return new Position(
                    rs.getString(1),
                    rs.getString(2),
                    started,
                    started ? rs.getString(4) : "0",
                    started ? rs.getLong(5) : 0,
                    rs.getString(6),
                    rs.getString(7),
                    rs.getString(8),
                    rs.getLong(9));
        }
    }

    /** Binds the log read of a lease ({@link #freshLeaseSql()}); public so that tests can EXPLAIN it. */
    public void bindFresh(PreparedStatement statement, Position position, UUID leaseId, Instant now, int limit)
            throws SQLException {
        // events of transactions in progress when done was taken, then of transactions begun since
        statement.setString(1, position.doneXip());
        statement.setString(2, position.lastXact());
        statement.setLong(3, position.lastSeq());
        statement.setString(4, position.upto());
        // a bound on the partition key: the executor skips the partitions below the floor before it starts (and
        // the dead letters kept apart, always taken, are left out by the plan)
        statement.setLong(5, position.floor());
        statement.setInt(6, limit);
        // one lower bound for the index (two, a scalar and a row, would leave it scanning from the lower one):
        // the last event taken, or the first transaction that began after done was taken
        boolean pastDone = Long.parseUnsignedLong(position.lastXact()) >= Long.parseUnsignedLong(position.doneXmax());
        statement.setString(7, pastDone ? position.lastXact() : position.doneXmax());
        statement.setLong(8, pastDone ? position.lastSeq() : Long.MIN_VALUE);
        statement.setString(9, position.uptoXmax());
        statement.setString(10, position.upto());
        statement.setLong(11, position.floor());
        statement.setInt(12, limit);
        statement.setInt(13, limit);
        statement.setObject(14, leaseId);
        statement.setObject(15, Jdbc.timestamptz(now));
    }

    private record Taken(int count, String lastXact, long lastSeq) {}

    /** Reads the log rows a lease took: the due ones are leased, all count for the position. */
    private static Taken readFresh(PreparedStatement statement, List<OutboxEvent> leased) throws SQLException {
        int count = 0;
        String lastXact = null;
        long lastSeq = 0;
        try (ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                count++;
                lastXact = rs.getString(22);
                lastSeq = rs.getLong(2);
                if (rs.getBoolean(23)) {
                    leased.add(EventRows.toEvent(rs));
                }
            }
        }
        return new Taken(count, lastXact, lastSeq);
    }

    /**
     * Marks events published: a lease row whose events are all among them in one statement (the common
     * case), the rest through the state table (events leased from it, or of a lease row moved into it).
     */
    public MarkResult published(Connection connection, UUID leaseId, Collection<UUID> eventIds, Instant now)
            throws SQLException {
        Set<UUID> ids = new HashSet<>(eventIds);
        if (ids.isEmpty()) {
            return MarkResult.empty();
        }
        Set<UUID> fromLease = new HashSet<>();
        try (PreparedStatement statement = connection.prepareStatement(publishedLeaseSql)) {
            statement.setObject(1, leaseId);
            statement.setArray(2, Jdbc.uuidArray(connection, ids));
            statement.setObject(3, Jdbc.timestamptz(now));
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    fromLease.add(Jdbc.uuid(rs, 1));
                }
            }
        }
        if (fromLease.isEmpty()) {
            materialize(connection, leaseId);
        }
        ids.removeAll(fromLease);
        MarkResult rest = publishedFromState(connection, leaseId, ids, now);
        Set<UUID> marked = new HashSet<>(rest.marked());
        marked.addAll(fromLease);
        return new MarkResult(marked, rest.leaseLost());
    }

    /** Moves a lease row's events into the state table as in-flight rows of the same lease (none: nothing). */
    private void materialize(Connection connection, UUID leaseId) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(materializeLeaseSql)) {
            statement.setObject(1, leaseId);
            statement.executeUpdate();
        }
    }

    private MarkResult publishedFromState(Connection connection, UUID leaseId, Set<UUID> ids, Instant now)
            throws SQLException {
        if (ids.isEmpty()) {
            return MarkResult.empty();
        }
        try (PreparedStatement statement = connection.prepareStatement(publishedSql)) {
            statement.setArray(1, Jdbc.uuidArray(connection, ids));
            statement.setObject(2, leaseId);
            statement.setObject(3, Jdbc.timestamptz(now));
            Set<UUID> marked = new HashSet<>();
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    marked.add(Jdbc.uuid(rs, 1));
                }
            }
            Set<UUID> lost = new HashSet<>(ids);
            lost.removeAll(marked);
            return new MarkResult(marked, lost);
        }
    }

    public MarkResult retry(Connection connection, UUID leaseId, Collection<RetryMark> marks) throws SQLException {
        if (!marks.isEmpty()) {
            materialize(connection, leaseId);
        }
        return stateMarks.retry(connection, leaseId, marks);
    }

    public MarkResult deadLettered(Connection connection, UUID leaseId, Collection<DeadLetterMark> marks)
            throws SQLException {
        if (!marks.isEmpty()) {
            materialize(connection, leaseId);
        }
        return stateMarks.deadLettered(connection, leaseId, marks);
    }

    public MarkResult released(Connection connection, UUID leaseId, Collection<UUID> eventIds) throws SQLException {
        if (!eventIds.isEmpty()) {
            materialize(connection, leaseId);
        }
        return stateMarks.released(connection, leaseId, eventIds);
    }

    /** Expired lease rows into the state table first, then expired in-flight state rows back to pending. */
    public int sweep(DSLContext dsl, Instant leasedBefore, int limit) {
        dsl.connection(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(materializeExpiredSql)) {
                statement.setObject(1, Jdbc.timestamptz(leasedBefore));
                statement.setInt(2, limit);
                statement.executeUpdate();
            }
        });
        return stateHousekeeping.sweep(dsl, leasedBefore, limit);
    }

    /**
     * Drops the partitions whose events are all published (and, keeping sent events, sent before the
     * cutoff) and holds nothing pending, in flight or waiting, after moving their dead letters out; adds
     * a partition ahead when needed; trims the positions behind the current one. Never deletes log rows
     * one by one (see {@link LogPartitions}).
     *
     * @return about how many events went
     */
    public int cleanUp(Connection connection, Instant sentBefore, int limit) throws SQLException {
        long removed = partitions.maintain(connection, sentBefore, limit);
        try (PreparedStatement statement = connection.prepareStatement(trimPositionsSql)) {
            statement.executeUpdate();
        }
        return (int) Math.min(Integer.MAX_VALUE, removed);
    }

    /** The partition maintenance of this table (tests shape the ranges through it). */
    public LogPartitions partitions() {
        return partitions;
    }

    public long purge(Connection connection, EventStatus status, Instant createdBefore) throws SQLException {
        String sql = status == EventStatus.SENT ? purgeSentSql : purgeFailedSql;
        long total = 0;
        long deleted;
        do {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setObject(1, Jdbc.timestamptz(createdBefore));
                deleted = single(statement);
            }
            total += deleted;
        } while (deleted == PURGE_CHUNK);
        return total;
    }

    public Map<EventStatus, Long> countByStatus(Connection connection) throws SQLException {
        Map<EventStatus, Long> counts = new EnumMap<>(EventStatus.class);
        try (PreparedStatement statement = connection.prepareStatement(countsSql);
                ResultSet rs = statement.executeQuery()) {
            rs.next();
            counts.put(EventStatus.PENDING, rs.getLong(1));
            counts.put(EventStatus.IN_FLIGHT, rs.getLong(2));
            counts.put(EventStatus.SENT, rs.getLong(3));
            counts.put(EventStatus.FAILED, rs.getLong(4));
        }
        return counts;
    }

    public Optional<Instant> oldestPendingCreatedAt(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(oldestPendingSql);
                ResultSet rs = statement.executeQuery()) {
            rs.next();
            return Optional.ofNullable(Jdbc.instant(rs, 1));
        }
    }

    public Backlog backlog(DSLContext dsl, Instant now) {
        return backlog.read(dsl, now);
    }

    public Optional<OutboxEvent> find(Connection connection, UUID eventId) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(findSql)) {
            statement.setObject(1, eventId);
            List<OutboxEvent> found = new ArrayList<>(1);
            readInto(statement, found);
            return found.stream().findFirst();
        }
    }

    public List<OutboxEvent> deadLetters(Connection connection, int offset, int limit) throws SQLException {
        return page(connection, deadLettersSql, offset, limit);
    }

    public List<OutboxEvent> retrying(Connection connection, int offset, int limit) throws SQLException {
        return page(connection, retryingSql, offset, limit);
    }

    public long countRetrying(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(countRetryingSql)) {
            return single(statement);
        }
    }

    public long countCreatedBefore(Connection connection, EventStatus status, Instant createdBefore)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(countCreatedBeforeSql)) {
            statement.setString(1, status.databaseValue());
            statement.setObject(2, Jdbc.timestamptz(createdBefore));
            return single(statement);
        }
    }

    public int requeue(Connection connection, DeadLetterSelector selector, Instant now) throws SQLException {
        String sql = requeueSql;
        if (selector instanceof DeadLetterSelector.ByIds byIds) {
            if (byIds.ids().isEmpty()) {
                return 0;
            }
            sql += " AND s.id = ANY(?)";
        } else if (selector instanceof DeadLetterSelector.ByType) {
            sql = requeueByTypeSql;
        }
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setObject(1, Jdbc.timestamptz(now));
            if (selector instanceof DeadLetterSelector.ByIds byIds) {
                statement.setArray(2, Jdbc.uuidArray(connection, byIds.ids()));
            } else if (selector instanceof DeadLetterSelector.ByType byType) {
                statement.setString(2, byType.type());
            }
            return statement.executeUpdate();
        }
    }

    public void probe(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(probeSql)) {
            statement.executeQuery().close();
        }
    }

    private static List<OutboxEvent> page(Connection connection, String sql, int offset, int limit)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setInt(1, offset);
            statement.setInt(2, limit);
            List<OutboxEvent> events = new ArrayList<>();
            readInto(statement, events);
            return events;
        }
    }

    private static void readInto(PreparedStatement statement, List<OutboxEvent> events) throws SQLException {
        try (ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                events.add(EventRows.toEvent(rs));
            }
        }
    }

    private static long single(PreparedStatement statement) throws SQLException {
        try (ResultSet rs = statement.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
