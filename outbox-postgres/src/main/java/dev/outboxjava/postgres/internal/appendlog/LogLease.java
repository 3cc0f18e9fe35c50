package dev.outboxjava.postgres.internal.appendlog;

import static dev.outboxjava.postgres.internal.OutboxTable.ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.EVENT_KEY;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LAST_ERROR;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASE_ID;
import static dev.outboxjava.postgres.internal.OutboxTable.NEXT_ATTEMPT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.column;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.DONE;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.KEYS;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.UPTO;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.XACT_ID;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.XID8;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.floorOf;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.lastPosition;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.readInto;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.snapshot;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.snapshotFunction;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.stateEventColumns;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.tableOf;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.text;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.xid8;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.internal.AsyncCommit;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.Jdbc;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The append-only layout's lease: one short transaction, one leaser at a time per table (a
 * transaction-scoped advisory lock), because the position it advances is shared. It first takes due
 * events from the state table (retries, released, requeued, scheduled events that fell due), oldest
 * first, then new events from the log ({@link LogReadSql}), the way PgQ cuts batches: the position is a
 * transaction snapshot {@code done} (every event whose transaction it sees has been taken) and, while a
 * lease's limit cuts the work short, the snapshot {@code upto} being worked through and the last event
 * taken of it. New events are those whose transaction {@code upto} sees and {@code done} does not:
 * transactions in progress when {@code done} was taken (its {@code xip} list, looked up by index) and
 * those begun since (an index range from {@code done}'s {@code xmax}), in {@code (xact_id, seq)} order. A
 * transaction still open is seen by neither, so its events come in a later snapshot, whatever their
 * sequence: commit-order safe, and a long writing transaction holds back only its own events. The reads
 * are index scans over rows that are never updated, starting where the position is; their work depends
 * on the batch, not on the history or on what vacuum could not remove. The new events leased get one row
 * together in the lease table (a new event not yet due, or held behind its key, gets a pending state row)
 * and a row is appended to the position table.
 *
 * <p>The lease transaction commits asynchronously ({@link AsyncCommit}): a crash may undo a lease at no
 * cost but a repeat. Before it, in auto-commit, the idle generations of the lease and parking tables are
 * emptied when they allow it ({@link LeaseGenerations}, {@link ParkingGenerations}).
 */
public final class LogLease {

    /**
     * Per key, how long a lease holds its keys "briefly": a new event whose key only such a lease holds, with
     * nothing leasable after it in the read, stays in the log for a later lease instead of becoming a pending
     * state row. Parking every event of a burst row by row would leave the state table's indexes full of
     * entries that a held horizon keeps, and parked events are leased through the state table, whose read
     * walks every parked event of a held key: when relays together lease every key of the backlog, parking
     * moves the whole backlog there and each lease walks all of it. A batch in flight usually completes
     * within milliseconds, but on a loaded machine a batch of 1,000 takes seconds, so the hold is well
     * above that; a lease stuck for longer (a relay gone, or hung until its publish timeout) no longer
     * holds the read back, and other keys wait for it at most this long.
     */
    static final Duration BRIEF_HOLD = Duration.ofSeconds(10);

    /** One leaser at a time per table, for this transaction; the lease commits asynchronously. */
    private static final String LOCK_SQL = PreparedSql.render(DSL.select(
            DSL.function("pg_advisory_xact_lock", SQLDataType.OTHER, bind(SQLDataType.BIGINT)),
            AsyncCommit.THIS_TRANSACTION));

    private final long advisoryLockKey;
    private final boolean perKey;
    private final String retryLeaseSql;
    private final String positionSql;
    private final String openingSql;
    private final String freshLeaseSql;
    private final String advanceSql;
    private final LeaseGenerations generations;
    private final ParkingGenerations parking;
    private final LogInversions inversions;

    public LogLease(Identifiers.TableName table) {
        this(table, Ordering.none());
    }

    /**
     * The statements for a table; under per-key ordering a lease also leaves for later, as pending state
     * rows, the events whose key an earlier event holds (in flight, waiting for a retry or a schedule, or
     * dead-lettered when the ordering holds keys). An event held only by a lease younger than
     * {@link #BRIEF_HOLD}, with nothing leasable after it in the read, is left in the log instead: the
     * position stops before it. The keys are looked up in the state and lease tables, never in the log.
     */
    public LogLease(Identifiers.TableName table, Ordering ordering) {
        this.perKey = ordering.isPerKey();
        this.advisoryLockKey = ("outbox-log-lease:" + table.display()).hashCode() * 0x9E3779B97F4A7C15L;
        Table<Record> t = tableOf(table);
        Table<Record> s = tableOf(LogLayoutDdl.stateTable(table));
        Table<Record> p = tableOf(LogLayoutDdl.positionTable(table));
        Table<Record> l = tableOf(LogLayoutDdl.leaseTable(table));
        Table<Record> floor = tableOf(LogLayoutDdl.floorTable(table));
        boolean holdsFailed = ordering.deadLetterHoldsKey();
        Table<Record> e = t.as("e");

        // the state-table read of the lease: due events, oldest first
        Table<Record> c = s.as("c");
        Condition due = column(c, STATUS)
                .eq(statusLiteral(EventStatus.PENDING))
                .and(column(c, NEXT_ATTEMPT_AT).le(bind(SQLDataType.INSTANT)));
        if (perKey) {
            Table<Record> b = s.as("b");
            Condition holds = column(b, STATUS)
                    .eq(statusLiteral(EventStatus.IN_FLIGHT))
                    .or(column(b, STATUS)
                            .eq(statusLiteral(EventStatus.PENDING))
                            .and(column(b, NEXT_ATTEMPT_AT).gt(bind(SQLDataType.INSTANT))));
            if (holdsFailed) {
                holds = holds.or(column(b, STATUS).eq(statusLiteral(EventStatus.FAILED)));
            }
            Condition earlierUnread = LogInversions.earlierUnread(c);
            due = due.and(column(c, EVENT_KEY)
                    .isNull()
                    .or(column(c, EVENT_KEY)
                            .notIn(leasedKeys(l))
                            .andNotExists(DSL.selectOne()
                                    .from(b)
                                    .where(column(b, EVENT_KEY).eq(column(c, EVENT_KEY)))
                                    .and(column(b, SEQ).lt(column(c, SEQ)))
                                    .and(holds))
                            .andNot(earlierUnread)));
        }
        CommonTableExpression<?> retried = name("r")
                .as(DSL.update(s)
                        .set(STATUS, statusLiteral(EventStatus.IN_FLIGHT))
                        .set(LEASE_ID, bind(SQLDataType.UUID))
                        .set(LEASED_AT, bind(SQLDataType.INSTANT))
                        .where(ID.in(DSL.select(column(c, ID))
                                .from(c)
                                .where(due)
                                .orderBy(column(c, SEQ))
                                .limit(bind(SQLDataType.INTEGER))
                                .forUpdate()
                                .skipLocked()))
                        .returning(ID, SEQ, STATUS, ATTEMPTS, LAST_ERROR, NEXT_ATTEMPT_AT, LEASED_AT, LEASE_ID));
        Table<Record> r = DSL.table(name("r")).as("s");
        this.retryLeaseSql = PreparedSql.render(DSL.with(retried)
                .select(stateEventColumns(r, e))
                .from(r)
                .join(e)
                .on(column(e, ID).eq(column(r, ID)).and(column(e, SEQ).eq(column(r, SEQ)))));

        // the position: the last row of the position table, or the start (a snapshot that sees nothing)
        Table<?> last = lastPosition(p);
        Field<Object> done = column(last, DONE);
        Field<Object> upto = DSL.coalesce(column(last, UPTO), snapshotFunction("pg_current_snapshot"));
        this.positionSql = PreparedSql.render(DSL.select(
                        text(done),
                        text(upto),
                        DSL.field(column(last, UPTO).isNull()),
                        text(column(last, XACT_ID)),
                        column(last, SEQ),
                        text(DSL.array(DSL.select(DSL.function("pg_snapshot_xip", XID8, done)))),
                        text(DSL.function("pg_snapshot_xmax", XID8, done)),
                        text(DSL.function("pg_snapshot_xmax", XID8, upto)),
                        floorOf(floor.as("f")))
                .from(last));

        // the lock, then the position, then (without per-key ordering, whose read needs the position) the
        // state-table read: a lease's first three statements in one round trip
        this.openingSql = LOCK_SQL + ";\n" + positionSql + (perKey ? "" : ";\n" + retryLeaseSql);
        this.freshLeaseSql = LogReadSql.render(table, perKey, holdsFailed);
        this.advanceSql = PreparedSql.render(DSL.insertInto(p, DONE, UPTO, XACT_ID, SEQ)
                .values(
                        snapshot(bind(SQLDataType.CLOB)), snapshot(bind(SQLDataType.CLOB)),
                        xid8(bind(SQLDataType.CLOB)), bind(SQLDataType.BIGINT)));
        this.generations = new LeaseGenerations(table);
        this.parking = new ParkingGenerations(table);
        this.inversions = new LogInversions(table);
    }

    /** The log read of the lease, to EXPLAIN; bind it with {@link #bindFresh}. */
    public String freshLeaseSql() {
        return freshLeaseSql;
    }

    /** The position read of the lease, to EXPLAIN. No binds. */
    public String positionSql() {
        return positionSql;
    }

    /** The state-table read of the lease, to EXPLAIN; bind it with {@link #bindRetry}. */
    public String retryLeaseSql() {
        return retryLeaseSql;
    }

    /** Leases up to {@code limit} events in one short transaction; they come back in sequence order. */
    public List<OutboxEvent> lease(Connection connection, UUID leaseId, int limit, Instant now) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        if (autoCommit) {
            generations.emptyIdle(connection, now);
            parking.emptyIdle(connection, now);
            connection.setAutoCommit(false);
        }
        try {
            List<OutboxEvent> events = new ArrayList<>();
            Position position;
            // one round trip: the statements of a PreparedStatement separated by ';' go to the server together
            try (PreparedStatement statement = connection.prepareStatement(openingSql)) {
                statement.setLong(1, advisoryLockKey);
                if (!perKey) {
                    bindRetry(statement, 2, null, leaseId, now, limit);
                }
                statement.execute();
                statement.getMoreResults();
                position = positionOf(statement.getResultSet());
                if (!perKey) {
                    statement.getMoreResults();
                    readInto(statement.getResultSet(), events);
                }
            }
            if (perKey) {
                // under per-key ordering the state-table read needs the position (see earlierUnread)
                try (PreparedStatement statement = connection.prepareStatement(retryLeaseSql)) {
                    bindRetry(statement, position, leaseId, now, limit);
                    readInto(statement.executeQuery(), events);
                }
            }
            // a second round when the first finished an older snapshot: the events committed since are taken at once
            for (int round = 0; round < 2 && events.size() < limit; round++) {
                if (round > 0) {
                    position = readPosition(connection);
                }
                int wanted = limit - events.size();
                LogSql.Taken taken;
                try (PreparedStatement statement = connection.prepareStatement(freshLeaseSql)) {
                    bindFresh(statement, position, leaseId, now, wanted);
                    taken = LogSql.readFresh(statement, events);
                }
                boolean finished = !taken.stopped() && taken.count() < wanted;
                if (taken.count() == 0 && (taken.stopped() || !position.started())) {
                    break; // nothing new, or nothing to take yet: the position stays (no row per empty lease)
                }
                try (PreparedStatement statement = connection.prepareStatement(advanceSql)) {
                    statement.setString(1, finished ? position.upto() : position.done());
                    statement.setString(2, finished ? null : position.upto());
                    statement.setString(3, finished ? "0" : taken.lastXact());
                    statement.setLong(4, finished ? 0 : taken.lastSeq());
                    statement.executeUpdate();
                }
                // a fresh snapshot, taken after this lease began, saw every commit the signals that woke it
                // announced: what committed since comes with its own signal, and a second round would most
                // often read nothing at the cost of two round trips
                if (!finished || !position.started()) {
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
        try (PreparedStatement statement = connection.prepareStatement(positionSql)) {
            return positionOf(statement.executeQuery());
        }
    }

    private static Position positionOf(ResultSet result) throws SQLException {
        try (ResultSet rs = result) {
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

    /**
     * Binds the state-table read of a lease ({@link #retryLeaseSql()}); under per-key ordering it needs the
     * position, which may be {@code null} otherwise. Public so that tests can EXPLAIN it.
     */
    public void bindRetry(PreparedStatement statement, Position position, UUID leaseId, Instant now, int limit)
            throws SQLException {
        bindRetry(statement, 1, position, leaseId, now, limit);
    }

    private void bindRetry(
            PreparedStatement statement, int first, Position position, UUID leaseId, Instant now, int limit)
            throws SQLException {
        OffsetDateTime at = Jdbc.timestamptz(now);
        int p = first;
        statement.setObject(p++, leaseId);
        statement.setObject(p++, at);
        statement.setObject(p++, at);
        if (perKey) {
            statement.setObject(p++, at);
            p = inversions.bindEarlierUnread(statement, p, position);
        }
        statement.setInt(p, limit);
    }

    /** Binds the log read of a lease ({@link #freshLeaseSql()}); public so that tests can EXPLAIN it. */
    public void bindFresh(PreparedStatement statement, Position position, UUID leaseId, Instant now, int limit)
            throws SQLException {
        // events of transactions in progress when done was taken, then of transactions begun since. Each read
        // starts at (xact_id, seq) >= (last taken, its seq + 1): PostgreSQL estimates a row comparison by its
        // first column alone, and xact_id >= last counts the rest of the last transaction where > would count
        // none of it; with that estimate, a transaction of many events (a bulk append) was read whole and
        // sorted for every lease instead of read in index order
        statement.setString(1, position.doneXip());
        statement.setString(2, position.upto());
        statement.setString(3, position.lastXact());
        statement.setLong(4, position.lastSeq() + 1);
        // a bound on the partition key: the executor skips the partitions below the floor before it starts (and
        // the dead letters kept apart, always taken, are left out by the plan)
        statement.setLong(5, position.floor());
        statement.setInt(6, limit);
        // one lower bound for the index (two, a scalar and a row, would leave it scanning from the lower one):
        // the last event taken, or the first transaction that began after done was taken
        boolean pastDone = Long.parseUnsignedLong(position.lastXact()) >= Long.parseUnsignedLong(position.doneXmax());
        statement.setString(7, pastDone ? position.lastXact() : position.doneXmax());
        statement.setLong(8, pastDone ? position.lastSeq() + 1 : Long.MIN_VALUE);
        statement.setString(9, position.uptoXmax());
        statement.setString(10, position.upto());
        statement.setLong(11, position.floor());
        statement.setInt(12, limit);
        statement.setInt(13, limit);
        statement.setObject(14, leaseId);
        statement.setObject(15, Jdbc.timestamptz(now));
        statement.setObject(16, Jdbc.timestamptz(now.minus(BRIEF_HOLD)));
        statement.setShort(17, LeaseGenerations.of(now));
        if (perKey) {
            inversions.find(statement.getConnection(), position).bind(statement, 18);
        }
    }

    /** The lookup of the events a per-key lease parks others behind ({@link LogInversions}), to EXPLAIN. */
    public String inversionsSql() {
        return inversions.sql();
    }

    /** Binds {@link #inversionsSql()} for the snapshot of {@code position}. */
    public void bindInversions(PreparedStatement statement, Position position) throws SQLException {
        LogInversions.bindFor(statement, position);
    }

    /** The keys of the new events in flight, gathered once per statement (a hashed lookup per candidate). */
    private static Select<Record1<String>> leasedKeys(Table<Record> leases) {
        Table<Record> lk = leases.as("lk");
        return DSL.select(DSL.function("unnest", SQLDataType.CLOB, column(lk, KEYS)))
                .from(lk);
    }
}
