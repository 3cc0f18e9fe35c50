package dev.outboxjava.postgres.internal.appendlog;

import static dev.outboxjava.postgres.internal.OutboxTable.ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.CONTENT_TYPE;
import static dev.outboxjava.postgres.internal.OutboxTable.CREATED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.DATA_SCHEMA;
import static dev.outboxjava.postgres.internal.OutboxTable.DESTINATION;
import static dev.outboxjava.postgres.internal.OutboxTable.EVENT_KEY;
import static dev.outboxjava.postgres.internal.OutboxTable.HEADERS;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LAST_ERROR;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASE_ID;
import static dev.outboxjava.postgres.internal.OutboxTable.MAX_ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.NEXT_ATTEMPT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.PAYLOAD;
import static dev.outboxjava.postgres.internal.OutboxTable.ROUTING_KEY;
import static dev.outboxjava.postgres.internal.OutboxTable.SENT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.SOURCE;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.SUBJECT;
import static dev.outboxjava.postgres.internal.OutboxTable.TYPE;
import static dev.outboxjava.postgres.internal.OutboxTable.column;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.internal.EventRows;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.OutboxTable;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DataType;
import org.jooq.DeleteConditionStep;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultDataType;
import org.jooq.impl.SQLDataType;

/**
 * The pieces the append-only layout's statements share: PostgreSQL's transaction id and snapshot types
 * (which jOOQ has no type for: positions travel as their text and are cast), the columns of the log, the
 * position and the lease tables that the event tables do not have, and the reads and writes more than
 * one statement family makes (a lease row unnested, lease rows moved into the state table).
 */
final class LogSql {

    private LogSql() {}

    /** PostgreSQL's transaction id and snapshot types, which jOOQ has no type for: values go as their text. */
    static final DataType<Object> XID8 = new DefaultDataType<>(SQLDialect.POSTGRES, SQLDataType.OTHER, "xid8");

    static final DataType<Object> PG_SNAPSHOT =
            new DefaultDataType<>(SQLDialect.POSTGRES, SQLDataType.OTHER, "pg_snapshot");

    /** Columns of the log, the position and the lease tables that the event tables do not have. */
    static final Field<Boolean> KEPT = field(name("kept"), SQLDataType.BOOLEAN);

    static final Field<Object> XACT_ID = field(name("xact_id"), XID8);
    static final Field<Long> POSITION_ID = field(name("id"), SQLDataType.BIGINT);
    static final Field<Object> DONE = field(name("done"), PG_SNAPSHOT);
    static final Field<Object> UPTO = field(name("upto"), PG_SNAPSHOT);
    static final Field<UUID[]> IDS = field(name("ids"), SQLDataType.UUID.array());
    static final Field<String[]> KEYS = field(name("keys"), SQLDataType.CLOB.array());
    static final Field<Long[]> SEQS = field(name("seqs"), SQLDataType.BIGINT.array());

    static List<OutboxEvent> page(Connection connection, String sql, int offset, int limit) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setInt(1, offset);
            statement.setInt(2, limit);
            List<OutboxEvent> events = new ArrayList<>();
            readInto(statement.executeQuery(), events);
            return events;
        }
    }

    static void readInto(ResultSet result, List<OutboxEvent> events) throws SQLException {
        try (ResultSet rs = result) {
            while (rs.next()) {
                events.add(EventRows.toEvent(rs));
            }
        }
    }

    static Table<Record> tableOf(Identifiers.TableName name) {
        return new OutboxTable(name).table();
    }

    /** Log columns ({@code e}) and state columns ({@code s}) in {@link EventRows#COLUMNS}' order. */
    static List<Field<?>> stateEventColumns(Table<?> s, Table<?> e) {
        return List.of(
                column(e, ID),
                column(e, SEQ),
                column(e, TYPE),
                column(e, SOURCE),
                column(e, EVENT_KEY),
                column(e, DESTINATION),
                column(e, ROUTING_KEY),
                column(e, CONTENT_TYPE),
                column(e, PAYLOAD),
                column(e, HEADERS),
                column(s, STATUS),
                column(s, ATTEMPTS),
                column(e, MAX_ATTEMPTS),
                column(s, LAST_ERROR),
                column(s, NEXT_ATTEMPT_AT),
                column(e, CREATED_AT),
                column(s, LEASED_AT),
                column(s, LEASE_ID),
                DSL.castNull(SENT_AT.getDataType()),
                column(e, SUBJECT),
                column(e, DATA_SCHEMA));
    }

    /** A lease row's events, one row each ({@code unnest} of its id and sequence arrays, in step). */
    static Table<?> unnested(Table<?> leaseRows) {
        return DSL.select(
                        column(leaseRows, LEASE_ID),
                        column(leaseRows, LEASED_AT),
                        DSL.function("unnest", SQLDataType.UUID, column(leaseRows, IDS))
                                .as(ID.getUnqualifiedName()),
                        DSL.function("unnest", SQLDataType.BIGINT, column(leaseRows, SEQS))
                                .as(SEQ.getUnqualifiedName()))
                .from(leaseRows)
                .asTable("u");
    }

    /** The lease rows {@code deleted} returns, moved into the state table as in-flight rows of their lease. */
    static String intoStateRows(Table<Record> t, Table<Record> s, DeleteConditionStep<Record> deleted) {
        Table<?> u = unnested(DSL.table(name("x")));
        Table<Record> e = t.as("e");
        return PreparedSql.render(DSL.with(name("x").as(deleted.returning(DSL.asterisk())))
                .insertInto(
                        s,
                        ID,
                        SEQ,
                        EVENT_KEY,
                        STATUS,
                        ATTEMPTS,
                        NEXT_ATTEMPT_AT,
                        LEASE_ID,
                        LEASED_AT,
                        TYPE,
                        DESTINATION,
                        CREATED_AT)
                .select(DSL.select(
                                column(e, ID),
                                column(e, SEQ),
                                column(e, EVENT_KEY),
                                statusLiteral(EventStatus.IN_FLIGHT),
                                DSL.inline(0),
                                column(e, NEXT_ATTEMPT_AT),
                                column(u, LEASE_ID),
                                column(u, LEASED_AT),
                                column(e, TYPE),
                                column(e, DESTINATION),
                                column(e, CREATED_AT))
                        .from(u)
                        .join(e)
                        .on(column(e, ID).eq(column(u, ID)).and(column(e, SEQ).eq(column(u, SEQ))))));
    }

    /** {@code value::text}: a transaction id or snapshot read as its text. */
    static Field<String> text(Field<?> value) {
        return DSL.cast(value, SQLDataType.CLOB);
    }

    static Field<Object> xid8(Field<String> text) {
        return DSL.cast(text, XID8);
    }

    static Field<Object> snapshot(Field<String> text) {
        return DSL.cast(text, PG_SNAPSHOT);
    }

    static Field<Object> snapshotFunction(String function) {
        return DSL.function(function, PG_SNAPSHOT);
    }

    /** {@code pg_visible_in_snapshot(xact, ?::pg_snapshot)}: the snapshot sees the transaction's work. */
    static Condition visibleInText(Field<Object> xact, Field<String> snapshotText) {
        return visibleIn(xact, snapshot(snapshotText));
    }

    /**
     * Of the transaction ids {@code xidsText} (an {@code xid8[]} as text: those in progress when the position's
     * {@code done} was taken), those the snapshot {@code snapshotText} sees. A transaction still open is left
     * out before the log is read: looking its rows so far up by index and leaving each would cost every lease
     * more the longer it writes.
     */
    static Field<Object[]> seenBy(Field<String> xidsText, Field<String> snapshotText) {
        Table<?> xids = DSL.unnest(DSL.cast(xidsText, XID8.array())).as("u", "x");
        Field<Object> xid = DSL.field(DSL.name("u", "x"), XID8);
        return DSL.array(DSL.select(xid).from(xids).where(visibleIn(xid, snapshot(snapshotText))));
    }

    /** {@code pg_visible_in_snapshot(xact, snapshot)}. */
    static Condition visibleIn(Field<Object> xact, Field<Object> snapshot) {
        return DSL.condition(DSL.function("pg_visible_in_snapshot", SQLDataType.BOOLEAN, xact, snapshot));
    }

    /**
     * The position as one row {@code p (done, upto, xact_id, seq)}: the last row of the position table, or
     * the start (a snapshot that sees nothing) when it has none.
     */
    static Table<?> lastPosition(Table<Record> positions) {
        return DSL.select(DONE, UPTO, XACT_ID, SEQ)
                .from(positions)
                .orderBy(POSITION_ID.desc())
                .limit(DSL.inline(1))
                .unionAll(DSL.select(
                        DSL.inline("1:1:").cast(PG_SNAPSHOT),
                        DSL.inline(null, PG_SNAPSHOT),
                        DSL.inline("0").cast(XID8),
                        DSL.inline(0L)))
                .limit(DSL.inline(1))
                .asTable("p");
    }

    /** The floor of the log read: the last row of the floor table, or the lowest sequence when it has none. */
    static Field<Long> floorOf(Table<Record> floors) {
        return DSL.coalesce(
                DSL.field(DSL.select(column(floors, SEQ))
                        .from(floors)
                        .orderBy(column(floors, POSITION_ID).desc())
                        .limit(DSL.inline(1))),
                DSL.inline(Long.MIN_VALUE));
    }

    static long single(PreparedStatement statement) throws SQLException {
        try (ResultSet rs = statement.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * What the log read took: {@code count} events up to {@code (lastXact, lastSeq)}; {@code stopped} when it
     * stopped before an event left in the log for a later lease (the snapshot is not used up).
     */
    record Taken(int count, String lastXact, long lastSeq, boolean stopped) {}

    /** Reads the log rows a lease took: the due ones are leased, all count for the position. */
    static Taken readFresh(PreparedStatement statement, List<OutboxEvent> leased) throws SQLException {
        int count = 0;
        String lastXact = null;
        long lastSeq = 0;
        try (ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                if (rs.getBoolean(24)) {
                    return new Taken(count, lastXact, lastSeq, true);
                }
                count++;
                lastXact = rs.getString(22);
                lastSeq = rs.getLong(2);
                if (rs.getBoolean(23)) {
                    leased.add(EventRows.toEvent(rs));
                }
            }
        }
        return new Taken(count, lastXact, lastSeq, false);
    }
}
