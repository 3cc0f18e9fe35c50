package dev.outboxjava.postgres.internal.appendlog;

import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.column;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The floor of the append-only layout's log read: the lowest sequence an event not yet taken by the
 * position may have, so that the lease leaves out the partitions below it. Raised by each maintenance run
 * of {@link LogPartitions}.
 */
final class LogFloor {

    private static final Table<Record> PG_LOCKS = DSL.table(name("pg_locks"));
    private static final Field<String> LOCKTYPE = field(name("locktype"), SQLDataType.CLOB);
    private static final Field<Object> RELATION = field(name("relation"), LogRanges.REGCLASS);
    private static final Field<String> MODE = field(name("mode"), SQLDataType.CLOB);
    private static final Field<String> VIRTUALTRANSACTION = field(name("virtualtransaction"), SQLDataType.CLOB);

    private final Identifiers.TableName table;
    private final String writersSql;
    private final String runningSql;
    private final String lowestUntakenSql;
    private final String floorSql;
    private final String addFloorSql;
    private final String trimFloorSql;
    /** The sequence and the writers seen at the previous run: the floor may rise to it once they have ended. */
    private volatile Barrier barrier;

    private record Barrier(long next, String[] writers) {}

    LogFloor(Identifiers.TableName table) {
        this.table = table;
        Table<Record> e = LogSql.tableOf(LogLayoutDdl.liveTable(table)).as("e");
        Table<Record> floor = LogSql.tableOf(LogLayoutDdl.floorTable(table));
        // transactions writing to the log hold this lock from before they draw a sequence until they end
        Condition writingToLog =
                LOCKTYPE.eq(DSL.inline("relation")).and(RELATION.eq(LogRanges.regclass(bind(SQLDataType.CLOB))));
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
     * Raises the floor of the log read: the lowest sequence an event not yet taken by the position may
     * have, so that the lease leaves out the partitions below it. An event's sequence is drawn inside
     * its writing transaction, which holds a lock on the log from before the draw until it ends; so once
     * every transaction that held that lock when the sequence stood at {@code n} has ended, every event
     * below {@code n} is committed or gone, and the lowest of them the position has not taken (or
     * {@code n}) is a floor. The writers are noted at one run and looked for at the next.
     */
    void raiseFloor(Connection connection, long next) throws SQLException {
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
}
