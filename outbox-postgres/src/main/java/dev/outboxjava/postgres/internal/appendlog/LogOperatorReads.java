package dev.outboxjava.postgres.internal.appendlog;

import static dev.outboxjava.postgres.internal.OutboxTable.ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.CREATED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.NEXT_ATTEMPT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.column;
import static dev.outboxjava.postgres.internal.OutboxTable.statusIs;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.page;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.readInto;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.single;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.stateEventColumns;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.tableOf;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.internal.BacklogQuery;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.Jdbc;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.OutboxTable;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The append-only layout's operator reads: counts by status, the oldest pending event, the backlog, an
 * event by id, pages of dead letters and of retrying events. An event's status is where its rows are:
 * pending (the pending view: unread in the log, or a pending state row), in flight (the in-flight view),
 * sent (a sent record), failed (a dead-lettered state row).
 */
public final class LogOperatorReads {

    private static final Settings SETTINGS = new Settings().withExecuteLogging(false);

    private final String countsSql;
    private final String oldestPendingSql;
    private final String findSql;
    private final String retryingSql;
    private final String countRetryingSql;
    private final String countCreatedBeforeSql;
    private final String probeSql;
    private final BacklogQuery backlog;

    public LogOperatorReads(Identifiers.TableName table, CompletionMode completionMode, Ordering ordering) {
        Table<Record> t = tableOf(table);
        Table<Record> s = tableOf(LogLayoutDdl.stateTable(table));
        Table<Record> d = tableOf(LogLayoutDdl.sentTable(table));
        Table<Record> events = tableOf(LogLayoutDdl.eventsView(table));
        Table<Record> pending = tableOf(LogLayoutDdl.pendingView(table));
        Table<Record> inFlight = tableOf(LogLayoutDdl.inFlightView(table));
        Table<Record> e = t.as("e");
        boolean deleteOnPublish = completionMode == CompletionMode.DELETE_ON_PUBLISH;
        // deleting on publish, an event with a sent record is gone (its rows go with its partition)
        this.countsSql = PreparedSql.render(DSL.select(
                DSL.field(DSL.selectCount().from(pending)),
                DSL.field(DSL.selectCount().from(inFlight)),
                deleteOnPublish ? DSL.inline(0) : DSL.field(DSL.selectCount().from(d)),
                DSL.field(DSL.selectCount().from(s).where(statusIs(EventStatus.FAILED)))));
        this.oldestPendingSql =
                PreparedSql.render(DSL.select(DSL.min(CREATED_AT)).from(pending));
        this.findSql = PreparedSql.render(DSL.select(OutboxTable.ALL)
                .from(events)
                .where(ID.eq(bind(SQLDataType.UUID)))
                .and(deleteOnPublish ? STATUS.ne(statusLiteral(EventStatus.SENT)) : DSL.noCondition()));
        Table<Record> st = s.as("s");
        Condition sameEvent =
                column(e, ID).eq(column(st, ID)).and(column(e, SEQ).eq(column(st, SEQ)));
        this.retryingSql = PreparedSql.render(DSL.select(stateEventColumns(st, e))
                .from(st)
                .join(e)
                .on(sameEvent)
                .where(column(st, STATUS).eq(statusLiteral(EventStatus.PENDING)))
                .and(column(st, ATTEMPTS).gt(DSL.inline(0)))
                .orderBy(column(st, NEXT_ATTEMPT_AT), column(st, SEQ))
                .offset(bind(SQLDataType.INTEGER))
                .limit(bind(SQLDataType.INTEGER)));
        this.countRetryingSql = PreparedSql.render(
                DSL.selectCount().from(s).where(statusIs(EventStatus.PENDING)).and(ATTEMPTS.gt(DSL.inline(0))));
        this.countCreatedBeforeSql = PreparedSql.render(DSL.selectCount()
                .from(events)
                .where(STATUS.eq(bind(SQLDataType.CLOB)))
                .and(CREATED_AT.lt(bind(SQLDataType.INSTANT))));
        this.probeSql = PreparedSql.render(DSL.selectOne().from(t).where(DSL.falseCondition()));
        // per key, the backlog also needs the dead letters (which may hold keys)
        this.backlog = ordering.isPerKey()
                ? new BacklogQuery(new OutboxTable(LogLayoutDdl.waitingView(table)), ordering)
                : new BacklogQuery(new OutboxTable(LogLayoutDdl.pendingView(table)), Ordering.none());
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

    public Backlog backlog(Connection connection, Instant now) {
        return backlog.read(DSL.using(connection, SQLDialect.POSTGRES, SETTINGS), now);
    }

    public Optional<OutboxEvent> find(Connection connection, UUID eventId) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(findSql)) {
            statement.setObject(1, eventId);
            List<OutboxEvent> found = new ArrayList<>(1);
            readInto(statement.executeQuery(), found);
            return found.stream().findFirst();
        }
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

    public void probe(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(probeSql)) {
            statement.executeQuery().close();
        }
    }
}
