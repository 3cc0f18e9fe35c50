package dev.outboxjava.postgres.internal.appendlog;

import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.column;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.postgres.internal.AsyncCommit;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DataType;
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
 * The append-only layout's ranges of {@code seq}: each a partition of the log and one of the sent table
 * with the same bounds, read from the catalog and added above the highest one. The DDL stays text made of
 * quoted identifiers and computed bounds (jOOQ's DSL has no partition clauses); each change runs in a short
 * transaction of its own with a short lock timeout.
 */
final class LogRanges {

    private static final Pattern BOUND = Pattern.compile("FROM \\('?(MINVALUE|-?\\d+)'?\\) TO \\('?(-?\\d+)'?\\)");

    /** Logged as the partition maintenance, which it is part of. */
    private static final Logger log = LoggerFactory.getLogger(LogPartitions.class);

    /** This transaction's lock timeout ({@code SET LOCAL}). */
    static final String SHORT_LOCK_TIMEOUT =
            PreparedSql.render(DSL.select(AsyncCommit.setLocal("lock_timeout", LogPartitions.LOCK_TIMEOUT)));
    /** Reads the qualified names the catalog gives back (a sequence's, quoted where needed). */
    static final Parser SQL_NAMES = DSL.using(SQLDialect.POSTGRES).parser();

    static final DataType<Object> REGCLASS = new DefaultDataType<>(SQLDialect.POSTGRES, SQLDataType.OTHER, "regclass");

    /** The catalog tables and columns read here. */
    static final Table<Record> PG_INHERITS = DSL.table(name("pg_inherits"));

    static final Table<Record> PG_CLASS = DSL.table(name("pg_class"));
    static final Field<Object> OID = field(name("oid"), REGCLASS);
    static final Field<Object> INHRELID = field(name("inhrelid"), REGCLASS);
    static final Field<Object> INHPARENT = field(name("inhparent"), REGCLASS);
    static final Field<String> RELNAME = field(name("relname"), SQLDataType.CLOB);
    static final Field<Object> RELPARTBOUND = field(name("relpartbound"), SQLDataType.OTHER);
    static final Field<Float> RELTUPLES = field(name("reltuples"), SQLDataType.REAL);
    /** A sequence's columns. */
    private static final Field<Boolean> IS_CALLED = field(name("is_called"), SQLDataType.BOOLEAN);

    private static final Field<Long> LAST_VALUE = field(name("last_value"), SQLDataType.BIGINT);

    private final Identifiers.TableName table;
    private final String rangesSql;
    private final String nextSeqSql;
    private final String overflowSql;

    LogRanges(Identifiers.TableName table) {
        this.table = table;
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
        this.overflowSql = PreparedSql.render(
                DSL.select(DSL.count(), DSL.max(SEQ)).from(LogSql.tableOf(LogLayoutDdl.overflowTable(table))));
    }

    /** The log's ranges, lowest first (the overflow partition is not one). */
    public List<LogPartitions.Range> ranges(Connection connection) throws SQLException {
        String prefix = table.table() + "_p";
        List<LogPartitions.Range> ranges = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(rangesSql)) {
            statement.setString(1, LogLayoutDdl.liveTable(table).quoted());
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    Matcher bound = BOUND.matcher(rs.getString(2));
                    String name = rs.getString(1);
                    if (bound.find() && name.startsWith(prefix)) {
                        long lower =
                                bound.group(1).equals("MINVALUE") ? Long.MIN_VALUE : Long.parseLong(bound.group(1));
                        ranges.add(new LogPartitions.Range(
                                Long.parseLong(name.substring(prefix.length())),
                                lower,
                                Long.parseLong(bound.group(2))));
                    }
                }
            }
        }
        ranges.sort(Comparator.comparingLong(LogPartitions.Range::lower));
        return ranges;
    }

    /**
     * Adds a range of {@code width} events above the highest one (or above the overflow's rows), in its
     * own short transaction. Maintenance calls it; tests and operators may call it to shape the ranges.
     */
    public LogPartitions.Range addRange(Connection connection, long width) throws SQLException {
        List<LogPartitions.Range> ranges = ranges(connection);
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
        long number =
                ranges.stream().mapToLong(LogPartitions.Range::number).max().orElse(0) + 1;
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
        return new LogPartitions.Range(number, lower, upper);
    }

    /** The value the log's sequence gives next. */
    long nextSeq(Connection connection) throws SQLException {
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
    static Field<Object> regclass(Field<String> quotedName) {
        return DSL.cast(quotedName, REGCLASS);
    }

    interface Work<T> {
        T run(Statement statement) throws SQLException;
    }

    /** Runs {@code work} in a transaction of its own with the short lock timeout. */
    static <T> T inTransaction(Connection connection, Work<T> work) throws SQLException {
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

    /** The planner's row count when vacuum or analyze has set one, else an exact count (small partitions). */
    static long estimate(Statement statement, Identifiers.TableName part) throws SQLException {
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
}
