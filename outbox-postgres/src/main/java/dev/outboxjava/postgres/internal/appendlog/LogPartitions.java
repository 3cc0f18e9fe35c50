package dev.outboxjava.postgres.internal.appendlog;

import static dev.outboxjava.postgres.internal.OutboxTable.CREATED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.SENT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.column;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.Jdbc;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.CommonTableExpression;
import org.jooq.DatePart;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention of the append-only layout ({@link LogLayoutDdl}) by whole partitions: the log and its sent
 * records are partitioned by the same ranges of {@code seq}, and a range is dropped, log and sent
 * partitions together, once nothing in it is pending (not yet read by the position, or waiting in the
 * state table), in flight, or sent inside the retention (keep-sent mode; delete-on-publish drops as
 * soon as everything in it is published). Rows are never deleted one by one, so retention leaves
 * nothing for vacuum, whatever transaction holds its horizon back.
 *
 * <p><b>Dead letters</b> never stop a range from going and are never dropped: they are moved (one
 * {@code UPDATE} of their {@code kept} flag, rare by nature) into the log's {@code t_kept} partition
 * just before the drop, so the number of live partitions stays bounded whatever the operators leave
 * waiting. A kept event requeued and published later has its sent record in the sent table's overflow
 * partition; those few are deleted row by row once past the retention.
 *
 * <p><b>Ranges ahead.</b> Each run makes sure a range exists above the one being filled, sized from
 * the rate seen over the live log so that one spans about a quarter of the retention (between
 * {@value #MIN_WIDTH} and {@value #MAX_WIDTH} events): a steady 2,000 events/s with a 7-day retention
 * gives ranges of about 300 million events and six or seven live partitions. An insert never fails for
 * want of a range: rows past the last one go to the overflow partition, which a run reports at WARN.
 *
 * <p><b>Locks.</b> A new range is created apart and attached ({@code SHARE UPDATE EXCLUSIVE} on the
 * parent: producers and leases go on). A drop needs {@code ACCESS EXCLUSIVE} on the log and sent tables;
 * it waits at most {@value #LOCK_TIMEOUT} for it (a {@code pg_dump} or a long transaction that read the
 * log holds it back), so producers never queue behind it for longer, and is tried again at the next run.
 * Everything is checked again under the lock before anything is dropped.
 *
 * <p><b>Statements.</b> The catalog queries and the DML are built with jOOQ's DSL and rendered once per
 * table ({@link PreparedSql}); the DDL stays text ({@link LogRanges}); the floor of the log read is
 * {@link LogFloor}'s.
 */
public final class LogPartitions {

    /** The upper bound of a new table's first range. */
    public static final long FIRST_UPPER = 1_000_000L;
    /** Width of a range when there is no rate to size it from. */
    static final long DEFAULT_WIDTH = 1_000_000L;

    static final long MIN_WIDTH = 10_000L;
    static final long MAX_WIDTH = 1_000_000_000L;
    /** Ranges per retention period: fewer means fewer partitions, more means sent events go sooner. */
    static final int RANGES_PER_RETENTION = 4;
    /** Delete-on-publish keeps nothing: a range spans this many seconds of events. */
    static final long DELETE_ON_PUBLISH_SPAN_SECONDS = 3_600;

    static final String LOCK_TIMEOUT = "500ms";
    /** Failed drops of one range in a row before each further one is logged at WARN. */
    static final int FAILURES_BEFORE_WARN = 3;
    /** Delete-on-publish: every sent record is past any cutoff. */
    private static final Instant FOREVER = Instant.parse("9999-01-01T00:00:00Z");

    /** PostgreSQL's SQLSTATE for a lock not granted within lock_timeout. */
    static final String LOCK_NOT_AVAILABLE = "55P03";

    private static final Logger log = LoggerFactory.getLogger(LogPartitions.class);

    private final Identifiers.TableName table;
    private final boolean keepSent;
    private final Map<Long, Integer> failures = new ConcurrentHashMap<>();
    private final String oldestSql;
    private final String busySql;
    private final String moveDeadLettersSql;
    private final String keptSentSql;
    private final LogRanges rangesOf;
    private final LogFloor floor;

    /** One range of the log: partitions {@code t_p<number>} and {@code t_sent_p<number>}. */
    public record Range(long number, long lower, long upper) {

        /** Whether the range starts at {@code MINVALUE}. */
        public boolean unbounded() {
            return lower == Long.MIN_VALUE;
        }
    }

    /** The maintenance of one table's partitions; deleting on publish, a range goes without waiting for a cutoff. */
    public LogPartitions(Identifiers.TableName table, CompletionMode completionMode) {
        this.table = table;
        this.keepSent = completionMode != CompletionMode.DELETE_ON_PUBLISH;
        Table<Record> t = LogSql.tableOf(table);
        Table<Record> live = LogSql.tableOf(LogLayoutDdl.liveTable(table));
        Table<Record> s = LogSql.tableOf(LogLayoutDdl.stateTable(table));
        Table<Record> l = LogSql.tableOf(LogLayoutDdl.leaseTable(table));
        Table<Record> d = LogSql.tableOf(LogLayoutDdl.sentTable(table));
        Table<Record> kept = LogSql.tableOf(LogLayoutDdl.keptTable(table));
        // the event the position took first among those still in the log (by the position index)
        Table<Record> e = live.as("e");
        Field<Integer> now = epoch(DSL.function("clock_timestamp", SQLDataType.INSTANT));
        this.oldestSql = PreparedSql.render(DSL.select(
                        column(e, SEQ),
                        now.minus(epoch(column(e, CREATED_AT))),
                        now.minus(epoch(DSL.cast(bind(SQLDataType.INSTANT), SQLDataType.INSTANT))))
                .from(e)
                .orderBy(column(e, LogSql.XACT_ID), column(e, SEQ))
                .limit(DSL.inline(1)));
        Table<Record> lease = l.as("l");
        Table<?> leased = DSL.unnest(column(lease, LogSql.SEQS)).as("x", SEQ.getName());
        this.busySql = PreparedSql.render(DSL.select(DSL.field(DSL.exists(DSL.selectOne()
                        .from(LogSql.tableOf(LogLayoutDdl.pendingView(table)))
                        .where(SEQ.ge(bind(SQLDataType.BIGINT)))
                        .and(SEQ.lt(bind(SQLDataType.BIGINT))))
                .or(DSL.exists(DSL.selectOne()
                        .from(s)
                        .where(SEQ.ge(bind(SQLDataType.BIGINT)))
                        .and(SEQ.lt(bind(SQLDataType.BIGINT)))
                        .and(STATUS.ne(statusLiteral(EventStatus.FAILED)))))
                .or(DSL.exists(DSL.selectOne()
                        .from(lease)
                        .whereExists(DSL.selectOne()
                                .from(leased)
                                .where(column(leased, SEQ).ge(bind(SQLDataType.BIGINT)))
                                .and(column(leased, SEQ).lt(bind(SQLDataType.BIGINT)))))))));
        Table<Record> st = s.as("s");
        Table<Record> logRow = t.as("e");
        this.moveDeadLettersSql = PreparedSql.render(DSL.update(logRow)
                .set(LogSql.KEPT, DSL.inline(true))
                .from(st)
                .where(column(st, STATUS).eq(statusLiteral(EventStatus.FAILED)))
                .and(column(st, SEQ).ge(bind(SQLDataType.BIGINT)))
                .and(column(st, SEQ).lt(bind(SQLDataType.BIGINT)))
                .and(column(logRow, ID).eq(column(st, ID)))
                .and(column(logRow, SEQ).eq(column(st, SEQ)))
                .and(column(logRow, SEQ).ge(bind(SQLDataType.BIGINT)))
                .and(column(logRow, SEQ).lt(bind(SQLDataType.BIGINT)))
                .and(DSL.not(DSL.condition(column(logRow, LogSql.KEPT)))));
        Table<Record> k = kept.as("k");
        Table<Record> sent = d.as("d");
        Table<Record> x = DSL.table(name("x"));
        CommonTableExpression<?> chosen = name("x")
                .as(DSL.select(column(k, ID), column(k, SEQ))
                        .from(k)
                        .join(sent)
                        .on(column(sent, ID)
                                .eq(column(k, ID))
                                .and(column(sent, SEQ).eq(column(k, SEQ))))
                        .where(column(sent, SENT_AT).lt(bind(SQLDataType.INSTANT)))
                        .limit(bind(SQLDataType.INTEGER)));
        CommonTableExpression<?> sentRecords = name("a")
                .as(DSL.deleteFrom(sent)
                        .using(x)
                        .where(column(sent, ID).eq(column(x, ID)))
                        .and(column(sent, SEQ).eq(column(x, SEQ)))
                        .returning(DSL.inline(1)));
        CommonTableExpression<?> keptRows = name("b")
                .as(DSL.deleteFrom(k)
                        .using(x)
                        .where(column(k, ID).eq(column(x, ID)))
                        .and(column(k, SEQ).eq(column(x, SEQ)))
                        .returning(DSL.inline(1)));
        this.keptSentSql = PreparedSql.render(
                DSL.with(chosen).with(sentRecords).with(keptRows).selectCount().from(DSL.table(name("b"))));
        this.rangesOf = new LogRanges(table);
        this.floor = new LogFloor(table);
    }

    /**
     * One maintenance run: a range ahead if needed, the overflow reported, every range that may go
     * dropped, and the kept events published before the cutoff deleted (at most {@code limit}).
     *
     * @param sentBefore the retention's cutoff (keep-sent mode); ignored when deleting on publish
     * @return about how many events went (a dropped range counts its planner estimate when it has one)
     */
    public long maintain(Connection connection, Instant sentBefore, int limit) throws SQLException {
        List<Range> ranges = ranges(connection);
        long next = rangesOf.nextSeq(connection);
        addAhead(connection, ranges, next, sentBefore);
        long removed = 0;
        for (Range range : ranges) {
            // a range the sequence has not passed yet may still receive rows
            if (range.upper() <= next) {
                removed += drop(connection, range, sentBefore);
            }
        }
        floor.raiseFloor(connection, next);
        try (PreparedStatement statement = connection.prepareStatement(keptSentSql)) {
            statement.setObject(1, Jdbc.timestamptz(keepSent ? sentBefore : FOREVER));
            statement.setInt(2, limit);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                removed += rs.getLong(1);
            }
        }
        return removed;
    }

    /** The log's ranges, lowest first (the overflow partition is not one). */
    public List<Range> ranges(Connection connection) throws SQLException {
        return rangesOf.ranges(connection);
    }

    /**
     * Adds a range of {@code width} events above the highest one (or above the overflow's rows), in its
     * own short transaction. Maintenance calls it; tests and operators may call it to shape the ranges.
     */
    public Range addRange(Connection connection, long width) throws SQLException {
        return rangesOf.addRange(connection, width);
    }

    /** Adds ranges until one waits, empty, above the one the next event goes to. */
    private void addAhead(Connection connection, List<Range> ranges, long next, Instant sentBefore)
            throws SQLException {
        long top = ranges.isEmpty()
                ? Long.MIN_VALUE
                : ranges.get(ranges.size() - 1).lower();
        try {
            // twice at most: once for the range being filled when the overflow gets the rows, once ahead
            for (int added = 0; added < 2 && top <= next; added++) {
                top = addRange(connection, width(connection, next, sentBefore)).lower();
            }
        } catch (SQLException e) {
            if (!LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                throw e;
            }
            log.warn(
                    "outbox table {}: could not add a partition ahead within {} (a lock is held on the log);"
                            + " trying again at the next run",
                    table.display(),
                    LOCK_TIMEOUT);
        }
    }

    /** Events per range: the rate over the live log times a quarter of the retention, within bounds. */
    private long width(Connection connection, long next, Instant sentBefore) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(oldestSql)) {
            statement.setObject(1, Jdbc.timestamptz(sentBefore));
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    return DEFAULT_WIDTH;
                }
                double elapsed = rs.getDouble(2);
                double span = keepSent ? rs.getDouble(3) / RANGES_PER_RETENTION : DELETE_ON_PUBLISH_SPAN_SECONDS;
                if (elapsed < 60 || span <= 0) {
                    return DEFAULT_WIDTH; // too short a history to measure a rate
                }
                double rate = (next - rs.getLong(1)) / elapsed;
                return (long) Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, rate * span));
            }
        }
    }

    /** Drops the range if nothing in it is needed any more; returns about how many events went. */
    private long drop(Connection connection, Range range, Instant sentBefore) throws SQLException {
        if (busy(connection, range, sentBefore)) {
            failures.remove(range.number());
            return 0;
        }
        Identifiers.TableName part = LogLayoutDdl.range(table, range.number());
        Identifiers.TableName sentPart = LogLayoutDdl.sentRange(table, range.number());
        try {
            long[] outcome = LogRanges.inTransaction(connection, statement -> {
                statement.execute("LOCK TABLE " + table.quoted() + ", "
                        + LogLayoutDdl.sentTable(table).quoted() + " IN ACCESS EXCLUSIVE MODE");
                // checked again now that no producer, lease or mark can change it
                if (busy(connection, range, sentBefore)) {
                    return null;
                }
                long moved;
                try (PreparedStatement move = connection.prepareStatement(moveDeadLettersSql)) {
                    move.setLong(1, range.lower());
                    move.setLong(2, range.upper());
                    move.setLong(3, range.lower());
                    move.setLong(4, range.upper());
                    moved = move.executeUpdate();
                }
                long events = LogRanges.estimate(statement, part);
                statement.execute("DROP TABLE " + part.quoted() + ", " + sentPart.quoted());
                return new long[] {events, moved};
            });
            failures.remove(range.number());
            if (outcome == null) {
                return 0;
            }
            log.info(
                    "outbox table {}: dropped partitions {} and {} (sequences {} to {}, about {} event(s)); {} dead"
                            + " letter(s) moved to {}",
                    table.display(),
                    part.display(),
                    sentPart.display(),
                    range.unbounded() ? "MINVALUE" : range.lower(),
                    range.upper() - 1,
                    outcome[0],
                    outcome[1],
                    LogLayoutDdl.keptTable(table).display());
            return outcome[0];
        } catch (SQLException e) {
            if (!LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                throw e;
            }
            int failed = failures.merge(range.number(), 1, Integer::sum);
            if (failed >= FAILURES_BEFORE_WARN) {
                log.warn(
                        "outbox table {}: partition {} could not be dropped {} times in a row: a lock on the log"
                                + " was not granted within {} (a long transaction or a pg_dump reading it?); trying again"
                                + " at the next run",
                        table.display(),
                        part.display(),
                        failed,
                        LOCK_TIMEOUT);
            } else {
                log.info(
                        "outbox table {}: partition {} not dropped, its lock was not granted within {}; trying"
                                + " again at the next run",
                        table.display(),
                        part.display(),
                        LOCK_TIMEOUT);
            }
            return 0;
        }
    }

    /** Whether anything in the range is still needed: pending, in flight, or sent inside the retention. */
    private boolean busy(Connection connection, Range range, Instant sentBefore) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(busySql)) {
            for (int i = 0; i < 3; i++) {
                statement.setLong(2 * i + 1, range.lower());
                statement.setLong(2 * i + 2, range.upper());
            }
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                if (rs.getBoolean(1)) {
                    return true;
                }
            }
        }
        if (!keepSent) {
            return false;
        }
        // rendered per range (its partition's name), at most once per range and run
        try (PreparedStatement statement =
                connection.prepareStatement(PreparedSql.render(DSL.select(DSL.field(DSL.exists(DSL.selectOne()
                        .from(LogSql.tableOf(LogLayoutDdl.sentRange(table, range.number())))
                        .where(SENT_AT.ge(bind(SQLDataType.INSTANT))))))))) {
            statement.setObject(1, Jdbc.timestamptz(sentBefore));
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** {@code extract(epoch FROM instant)}: seconds. */
    private static Field<Integer> epoch(Field<Instant> instant) {
        return DSL.extract(instant, DatePart.EPOCH);
    }
}
