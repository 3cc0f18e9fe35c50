package dev.outboxjava.postgres.internal.appendlog;

import static dev.outboxjava.postgres.internal.OutboxTable.CREATED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.SENT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.column;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.internal.AsyncCommit;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.Jdbc;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DataType;
import org.jooq.DatePart;
import org.jooq.Field;
import org.jooq.Parser;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultDataType;
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
 * table ({@link PreparedSql}; a range's own partition is named in two of them, rendered when it is
 * checked). The DDL — {@code CREATE TABLE}, {@code ATTACH PARTITION}, {@code LOCK TABLE} and
 * {@code DROP TABLE} — stays text made of quoted identifiers and computed bounds, as a DDL renderer
 * writes it: jOOQ's DSL has no partition clauses, and none of it takes a bind value.
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

    private static final Pattern BOUND = Pattern.compile("FROM \\('?(MINVALUE|-?\\d+)'?\\) TO \\('?(-?\\d+)'?\\)");

    private static final Logger log = LoggerFactory.getLogger(LogPartitions.class);

    /** This transaction's lock timeout ({@code SET LOCAL}). */
    private static final String SHORT_LOCK_TIMEOUT =
            PreparedSql.render(DSL.select(AsyncCommit.setLocal("lock_timeout", LOCK_TIMEOUT)));
    /** Reads the qualified names the catalog gives back (a sequence's, quoted where needed). */
    private static final Parser SQL_NAMES = DSL.using(SQLDialect.POSTGRES).parser();

    private static final DataType<Object> REGCLASS =
            new DefaultDataType<>(SQLDialect.POSTGRES, SQLDataType.OTHER, "regclass");

    /** The catalog tables and columns read here. */
    private static final Table<Record> PG_INHERITS = DSL.table(name("pg_inherits"));

    private static final Table<Record> PG_CLASS = DSL.table(name("pg_class"));
    private static final Table<Record> PG_LOCKS = DSL.table(name("pg_locks"));
    private static final Field<Object> OID = field(name("oid"), REGCLASS);
    private static final Field<Object> INHRELID = field(name("inhrelid"), REGCLASS);
    private static final Field<Object> INHPARENT = field(name("inhparent"), REGCLASS);
    private static final Field<String> RELNAME = field(name("relname"), SQLDataType.CLOB);
    private static final Field<Object> RELPARTBOUND = field(name("relpartbound"), SQLDataType.OTHER);
    private static final Field<Float> RELTUPLES = field(name("reltuples"), SQLDataType.REAL);
    private static final Field<String> LOCKTYPE = field(name("locktype"), SQLDataType.CLOB);
    private static final Field<Object> RELATION = field(name("relation"), REGCLASS);
    private static final Field<String> MODE = field(name("mode"), SQLDataType.CLOB);
    private static final Field<String> VIRTUALTRANSACTION = field(name("virtualtransaction"), SQLDataType.CLOB);
    /** A sequence's columns. */
    private static final Field<Boolean> IS_CALLED = field(name("is_called"), SQLDataType.BOOLEAN);

    private static final Field<Long> LAST_VALUE = field(name("last_value"), SQLDataType.BIGINT);

    private final Identifiers.TableName table;
    private final boolean keepSent;
    private final Map<Long, Integer> failures = new ConcurrentHashMap<>();
    private final String rangesSql;
    private final String nextSeqSql;
    private final String oldestSql;
    private final String overflowSql;
    private final String busySql;
    private final String moveDeadLettersSql;
    private final String keptSentSql;
    private final String writersSql;
    private final String runningSql;
    private final String lowestUntakenSql;
    private final String floorSql;
    private final String addFloorSql;
    private final String trimFloorSql;
    /** The sequence and the writers seen at the previous run: the floor may rise to it once they have ended. */
    private volatile Barrier barrier;

    private record Barrier(long next, String[] writers) {}

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
        Table<Record> floor = LogSql.tableOf(LogLayoutDdl.floorTable(table));
        Table<Record> i = PG_INHERITS.as("i");
        Table<Record> c = PG_CLASS.as("c");
        this.rangesSql = PreparedSql.render(DSL.select(
                        column(c, RELNAME),
                        DSL.function("pg_get_expr", SQLDataType.CLOB, column(c, RELPARTBOUND), column(c, OID)))
                .from(i)
                .join(c)
                .on(column(c, OID).eq(column(i, INHRELID)))
                .where(column(i, INHPARENT).eq(regclass(bind(SQLDataType.CLOB)))));
        this.nextSeqSql = PreparedSql.render(DSL.select(DSL.function(
                "pg_get_serial_sequence", SQLDataType.CLOB, bind(SQLDataType.CLOB), DSL.inline(SEQ.getName()))));
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
        this.overflowSql = PreparedSql.render(
                DSL.select(DSL.count(), DSL.max(SEQ)).from(LogSql.tableOf(LogLayoutDdl.overflowTable(table))));
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
        // transactions writing to the log hold this lock from before they draw a sequence until they end
        Condition writingToLog = LOCKTYPE.eq(DSL.inline("relation")).and(RELATION.eq(regclass(bind(SQLDataType.CLOB))));
        this.writersSql = PreparedSql.render(DSL.select(DSL.coalesce(
                        DSL.arrayAggDistinct(VIRTUALTRANSACTION),
                        DSL.inline("{}").cast(SQLDataType.CLOB.array())))
                .from(PG_LOCKS)
                .where(writingToLog)
                .and(MODE.eq(DSL.inline("RowExclusiveLock"))));
        this.runningSql = PreparedSql.render(DSL.select(DSL.field(DSL.exists(DSL.selectOne()
                .from(PG_LOCKS)
                .where(writingToLog)
                .and(VIRTUALTRANSACTION.eq(DSL.any(bind(SQLDataType.CLOB.array()))))))));
        Table<?> p = LogSql.lastPosition(LogSql.tableOf(LogLayoutDdl.positionTable(table)));
        Field<Object> xact = column(e, LogSql.XACT_ID);
        Field<Object> done = column(p, LogSql.DONE);
        Field<Object> upto = column(p, LogSql.UPTO);
        this.lowestUntakenSql = PreparedSql.render(DSL.select(DSL.min(column(e, SEQ)))
                .from(e, p)
                .where(column(e, SEQ).ge(bind(SQLDataType.BIGINT)))
                .and(column(e, SEQ).lt(bind(SQLDataType.BIGINT)))
                .and(xact.ge(DSL.function("pg_snapshot_xmin", LogSql.XID8, done)))
                .and(DSL.not(LogSql.visibleIn(xact, done)))
                .and(DSL.not(upto.isNotNull()
                        .and(LogSql.visibleIn(xact, upto))
                        .and(DSL.row(xact, column(e, SEQ)).le(DSL.row(column(p, LogSql.XACT_ID), column(p, SEQ)))))));
        this.floorSql = PreparedSql.render(DSL.select(LogSql.floorOf(floor)));
        this.addFloorSql = PreparedSql.render(DSL.insertInto(floor, SEQ).values(bind(SQLDataType.BIGINT)));
        this.trimFloorSql = PreparedSql.render(DSL.deleteFrom(floor)
                .where(LogSql.POSITION_ID.lt(
                        DSL.field(DSL.select(DSL.max(LogSql.POSITION_ID)).from(floor)))));
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
        long next = nextSeq(connection);
        addAhead(connection, ranges, next, sentBefore);
        long removed = 0;
        for (Range range : ranges) {
            // a range the sequence has not passed yet may still receive rows
            if (range.upper() <= next) {
                removed += drop(connection, range, sentBefore);
            }
        }
        raiseFloor(connection, next);
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

    /**
     * Raises the floor of the log read: the lowest sequence an event not yet taken by the position may
     * have, so that the lease leaves out the partitions below it. An event's sequence is drawn inside
     * its writing transaction, which holds a lock on the log from before the draw until it ends; so once
     * every transaction that held that lock when the sequence stood at {@code n} has ended, every event
     * below {@code n} is committed or gone, and the lowest of them the position has not taken (or
     * {@code n}) is a floor. The writers are noted at one run and looked for at the next.
     */
    private void raiseFloor(Connection connection, long next) throws SQLException {
        Barrier previous = barrier;
        if (previous != null && !running(connection, previous.writers())) {
            long floor = single(connection, floorSql);
            if (previous.next() > floor) {
                long lowest;
                try (PreparedStatement statement = connection.prepareStatement(lowestUntakenSql)) {
                    statement.setLong(1, floor);
                    statement.setLong(2, previous.next());
                    try (ResultSet rs = statement.executeQuery()) {
                        rs.next();
                        long untaken = rs.getLong(1);
                        lowest = rs.wasNull() ? previous.next() : untaken;
                    }
                }
                if (lowest > floor) {
                    try (PreparedStatement statement = connection.prepareStatement(addFloorSql)) {
                        statement.setLong(1, lowest);
                        statement.executeUpdate();
                    }
                    try (Statement statement = connection.createStatement()) {
                        statement.executeUpdate(trimFloorSql);
                    }
                }
            }
        }
        // the sequence first, then its writers: a writer that drew below it holds the lock by now, or has ended
        String[] writers;
        try (PreparedStatement statement = connection.prepareStatement(writersSql)) {
            statement.setString(1, table.quoted());
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                writers = (String[]) rs.getArray(1).getArray();
            }
        }
        barrier = new Barrier(next, writers);
    }

    /** Whether any of the writers still holds its lock on the log (a prepared transaction holds it too). */
    private boolean running(Connection connection, String[] writers) throws SQLException {
        if (writers.length == 0) {
            return false;
        }
        try (PreparedStatement statement = connection.prepareStatement(runningSql)) {
            statement.setString(1, table.quoted());
            statement.setArray(2, connection.createArrayOf("text", writers));
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static long single(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The log's ranges, lowest first (the overflow partition is not one). */
    public List<Range> ranges(Connection connection) throws SQLException {
        String prefix = table.table() + "_p";
        List<Range> ranges = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(rangesSql)) {
            statement.setString(1, LogLayoutDdl.liveTable(table).quoted());
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    Matcher bound = BOUND.matcher(rs.getString(2));
                    String name = rs.getString(1);
                    if (bound.find() && name.startsWith(prefix)) {
                        long lower =
                                bound.group(1).equals("MINVALUE") ? Long.MIN_VALUE : Long.parseLong(bound.group(1));
                        ranges.add(new Range(
                                Long.parseLong(name.substring(prefix.length())),
                                lower,
                                Long.parseLong(bound.group(2))));
                    }
                }
            }
        }
        ranges.sort(Comparator.comparingLong(Range::lower));
        return ranges;
    }

    /**
     * Adds a range of {@code width} events above the highest one (or above the overflow's rows), in its
     * own short transaction. Maintenance calls it; tests and operators may call it to shape the ranges.
     */
    public Range addRange(Connection connection, long width) throws SQLException {
        List<Range> ranges = ranges(connection);
        long lower = ranges.isEmpty()
                ? Long.MIN_VALUE
                : ranges.get(ranges.size() - 1).upper();
        long overflowRows;
        long overflowMax;
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(overflowSql)) {
            rs.next();
            overflowRows = rs.getLong(1);
            overflowMax = rs.getLong(2);
        }
        if (overflowRows > 0) {
            // rows past the last range: the new one starts above them (they stay in the overflow)
            lower = Math.max(lower, Math.max(overflowMax + 1, nextSeq(connection)));
        }
        long base = lower == Long.MIN_VALUE ? Math.max(1, nextSeq(connection)) : lower;
        long upper = Math.addExact(base, width);
        long number = ranges.stream().mapToLong(Range::number).max().orElse(0) + 1;
        Identifiers.TableName part = LogLayoutDdl.range(table, number);
        Identifiers.TableName sentPart = LogLayoutDdl.sentRange(table, number);
        String bounds = "FOR VALUES FROM (" + (lower == Long.MIN_VALUE ? "MINVALUE" : lower) + ") TO (" + upper + ")";
        inTransaction(connection, statement -> {
            // created apart and attached: SHARE UPDATE EXCLUSIVE on the parent, so producers go on
            statement.execute("CREATE TABLE " + part.quoted() + " (LIKE "
                    + LogLayoutDdl.liveTable(table).quoted() + " INCLUDING DEFAULTS)");
            statement.execute("ALTER TABLE " + LogLayoutDdl.liveTable(table).quoted() + " ATTACH PARTITION "
                    + part.quoted() + " " + bounds);
            statement.execute("CREATE TABLE " + sentPart.quoted() + " (LIKE "
                    + LogLayoutDdl.sentTable(table).quoted() + " INCLUDING DEFAULTS)");
            statement.execute("ALTER TABLE " + LogLayoutDdl.sentTable(table).quoted() + " ATTACH PARTITION "
                    + sentPart.quoted() + " " + bounds);
            return Boolean.TRUE;
        });
        if (overflowRows > 0) {
            log.warn(
                    "outbox table {}: {} event(s) are in the overflow partition {} (the ranges were not created ahead"
                            + " in time: does the cleaner run?); they are never dropped by retention; new range {} starts"
                            + " above them",
                    table.display(),
                    overflowRows,
                    LogLayoutDdl.overflowTable(table).display(),
                    part.display());
        }
        log.info(
                "outbox table {}: partition {} added for sequences {} to {}",
                table.display(),
                part.display(),
                lower == Long.MIN_VALUE ? "MINVALUE" : lower,
                upper - 1);
        return new Range(number, lower, upper);
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
            long[] outcome = inTransaction(connection, statement -> {
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
                long events = estimate(statement, part);
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

    /** The planner's row count when vacuum or analyze has set one, else an exact count (small partitions). */
    private static long estimate(Statement statement, Identifiers.TableName part) throws SQLException {
        try (ResultSet rs =
                statement.executeQuery(PreparedSql.render(DSL.select(DSL.cast(RELTUPLES, SQLDataType.BIGINT))
                        .from(PG_CLASS)
                        .where(OID.eq(regclass(DSL.inline(part.quoted()))))))) {
            rs.next();
            long estimate = rs.getLong(1);
            if (estimate >= 0) {
                return estimate;
            }
        }
        try (ResultSet rs =
                statement.executeQuery(PreparedSql.render(DSL.selectCount().from(LogSql.tableOf(part))))) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The value the log's sequence gives next. */
    private long nextSeq(Connection connection) throws SQLException {
        String sequence;
        try (PreparedStatement statement = connection.prepareStatement(nextSeqSql)) {
            statement.setString(1, table.quoted());
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                sequence = rs.getString(1);
            }
        }
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(PreparedSql.render(
                        DSL.select(DSL.when(IS_CALLED, LAST_VALUE.plus(DSL.inline(1L)))
                                        .otherwise(LAST_VALUE))
                                .from(DSL.table(SQL_NAMES.parseName(sequence)))))) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** {@code value::regclass}: a table's name, quoted, as the catalog's table reference. */
    private static Field<Object> regclass(Field<String> quotedName) {
        return DSL.cast(quotedName, REGCLASS);
    }

    /** {@code extract(epoch FROM instant)}: seconds. */
    private static Field<Integer> epoch(Field<Instant> instant) {
        return DSL.extract(instant, DatePart.EPOCH);
    }

    private interface Work<T> {
        T run(Statement statement) throws SQLException;
    }

    /** Runs {@code work} in a transaction of its own with the short lock timeout. */
    private static <T> T inTransaction(Connection connection, Work<T> work) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        if (autoCommit) {
            connection.setAutoCommit(false);
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute(SHORT_LOCK_TIMEOUT);
            T result = work.run(statement);
            if (result == null) {
                connection.rollback();
            } else {
                connection.commit();
            }
            return result;
        } catch (SQLException | RuntimeException e) {
            try {
                connection.rollback();
            } catch (SQLException rollbackFailure) {
                e.addSuppressed(rollbackFailure);
            }
            throw e;
        } finally {
            if (autoCommit) {
                connection.setAutoCommit(true);
            }
        }
    }
}
