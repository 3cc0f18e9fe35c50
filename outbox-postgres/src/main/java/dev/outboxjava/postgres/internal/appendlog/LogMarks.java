package dev.outboxjava.postgres.internal.appendlog;

import static dev.outboxjava.postgres.internal.OutboxTable.ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASE_ID;
import static dev.outboxjava.postgres.internal.OutboxTable.SENT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.column;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.IDS;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.SEQS;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.intoStateRows;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.tableOf;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.unnested;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.Jdbc;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.MarkQueries;
import dev.outboxjava.postgres.internal.OutboxTable;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The append-only layout's marks, fenced by lease id. A lease row whose events are all published is
 * deleted and its events appended to the sent table in one statement: one dead row per batch under a held
 * horizon. In both completion modes: deleting on publish, an event with a sent record is gone to every
 * reader, and its rows go when {@link LogPartitions} drops its partition (log rows are never deleted one
 * by one). Any other outcome first moves the lease row's events into the state table as in-flight rows of
 * the same lease; there, found by primary key, published deletes the state row and retry, dead letter and
 * release update it ({@link MarkQueries} over the state table).
 */
public final class LogMarks {

    private final String publishedSql;
    private final String publishedLeaseSql;
    private final String materializeLeaseSql;
    private final MarkQueries stateMarks;

    public LogMarks(Identifiers.TableName table) {
        Table<Record> t = tableOf(table);
        Table<Record> s = tableOf(LogLayoutDdl.stateTable(table));
        Table<Record> d = tableOf(LogLayoutDdl.sentTable(table));
        Table<Record> l = tableOf(LogLayoutDdl.leaseTable(table));
        // a whole lease row published: one statement, one dead row
        // (deleting on publish too: the sent records say which events are gone until their partition is dropped)
        CommonTableExpression<?> publishedRow = name("x")
                .as(DSL.deleteFrom(l)
                        .where(LEASE_ID.eq(bind(SQLDataType.UUID)))
                        .and(bind(SQLDataType.UUID.array()).contains(IDS))
                        .returning(LEASE_ID, LEASED_AT, IDS, SEQS));
        Table<?> publishedEvents = unnested(DSL.table(name("x")));
        this.publishedLeaseSql = PreparedSql.render(DSL.with(publishedRow)
                .insertInto(d, ID, SEQ, SENT_AT, ATTEMPTS)
                .select(DSL.select(
                                column(publishedEvents, ID),
                                column(publishedEvents, SEQ),
                                bind(SQLDataType.INSTANT),
                                DSL.inline(0))
                        .from(publishedEvents))
                .returning(ID));
        // anything else: the lease's events become in-flight state rows, which the marks then update
        this.materializeLeaseSql = intoStateRows(t, s, DSL.deleteFrom(l).where(LEASE_ID.eq(bind(SQLDataType.UUID))));
        // held by the lease, in flight (the status as an expression: the primary key finds the rows)
        CommonTableExpression<?> heldBy = name("x")
                .as(DSL.deleteFrom(s)
                        .where(ID.eq(DSL.any(bind(SQLDataType.UUID.array()))))
                        .and(LEASE_ID.eq(bind(SQLDataType.UUID)))
                        .and(STATUS.concat(DSL.inline("")).eq(statusLiteral(EventStatus.IN_FLIGHT)))
                        .returning(ID, SEQ, ATTEMPTS));
        Table<Record> x = DSL.table(name("x"));
        this.publishedSql = PreparedSql.render(DSL.with(heldBy)
                .insertInto(d, ID, SEQ, SENT_AT, ATTEMPTS)
                .select(DSL.select(column(x, ID), column(x, SEQ), bind(SQLDataType.INSTANT), column(x, ATTEMPTS))
                        .from(x))
                .returning(ID));
        this.stateMarks = new MarkQueries(new OutboxTable(LogLayoutDdl.stateTable(table)), CompletionMode.KEEP_SENT);
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
}
