package dev.outboxjava.postgres.internal.appendlog;

import static dev.outboxjava.postgres.internal.OutboxTable.CREATED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASE_ID;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.column;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.POSITION_ID;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.intoStateRows;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.single;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.tableOf;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.internal.HousekeepingQueries;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.Jdbc;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.OutboxTable;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The append-only layout's sweep, cleanup and purge. The sweep moves expired lease rows into the state
 * table before it sets expired in-flight state rows back to pending; the cleanup drops whole partitions
 * ({@link LogPartitions}) and trims the positions behind the current one; a purge deletes chunks of sent
 * records or dead letters with their log rows.
 */
public final class LogHousekeeping {

    private static final Settings SETTINGS = new Settings().withExecuteLogging(false);

    private static final int PURGE_CHUNK = HousekeepingQueries.PURGE_CHUNK;

    private final String materializeExpiredSql;
    private final String trimPositionsSql;
    private final String purgeSentSql;
    private final String purgeFailedSql;
    private final HousekeepingQueries stateHousekeeping;
    private final LogPartitions partitions;

    public LogHousekeeping(Identifiers.TableName table, CompletionMode completionMode) {
        Table<Record> t = tableOf(table);
        Table<Record> s = tableOf(LogLayoutDdl.stateTable(table));
        Table<Record> p = tableOf(LogLayoutDdl.positionTable(table));
        Table<Record> d = tableOf(LogLayoutDdl.sentTable(table));
        Table<Record> l = tableOf(LogLayoutDdl.leaseTable(table));
        this.materializeExpiredSql = intoStateRows(
                t,
                s,
                DSL.deleteFrom(l)
                        .where(LEASE_ID.in(DSL.select(LEASE_ID)
                                .from(l)
                                .where(LEASED_AT.lt(bind(SQLDataType.INSTANT)))
                                .orderBy(LEASED_AT)
                                .limit(bind(SQLDataType.INTEGER))
                                .forUpdate()
                                .skipLocked())));
        this.trimPositionsSql = PreparedSql.render(DSL.deleteFrom(p)
                .where(POSITION_ID.lt(DSL.field(DSL.select(DSL.max(POSITION_ID)).from(p)))));
        this.purgeSentSql = purge(t, d, DSL.noCondition());
        this.purgeFailedSql = purge(t, s, column(d.as("x"), STATUS).eq(statusLiteral(EventStatus.FAILED)));
        this.stateHousekeeping = new HousekeepingQueries(new OutboxTable(LogLayoutDdl.stateTable(table)));
        this.partitions = new LogPartitions(table, completionMode);
    }

    /** Expired lease rows into the state table first, then expired in-flight state rows back to pending. */
    public int sweep(Connection connection, Instant leasedBefore, int limit) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(materializeExpiredSql)) {
            statement.setObject(1, Jdbc.timestamptz(leasedBefore));
            statement.setInt(2, limit);
            statement.executeUpdate();
        }
        return stateHousekeeping.sweep(DSL.using(connection, SQLDialect.POSTGRES, SETTINGS), leasedBefore, limit);
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

    /** A chunk of {@code records}' rows whose events were created before a time, with their log rows. */
    private static String purge(Table<Record> t, Table<Record> records, Condition also) {
        Table<Record> x = records.as("x");
        Table<Record> e = t.as("e");
        CommonTableExpression<?> chosen = name("v")
                .as(DSL.select(column(x, ID))
                        .from(x)
                        .join(e)
                        .on(column(e, ID).eq(column(x, ID)))
                        .where(column(e, CREATED_AT).lt(bind(SQLDataType.INSTANT)))
                        .and(also)
                        .limit(DSL.inline(PURGE_CHUNK))
                        .forUpdate()
                        .of(x)
                        .skipLocked());
        CommonTableExpression<?> deleted = name("x")
                .as(DSL.deleteFrom(records)
                        .where(ID.in(DSL.select(ID).from(DSL.table(name("v")))))
                        .returning(ID));
        CommonTableExpression<?> logRows = name("y")
                .as(DSL.deleteFrom(t)
                        .where(ID.in(DSL.select(ID).from(DSL.table(name("x")))))
                        .returning(ID));
        return PreparedSql.render(
                DSL.with(chosen).with(deleted).with(logRows).selectCount().from(DSL.table(name("x"))));
    }
}
