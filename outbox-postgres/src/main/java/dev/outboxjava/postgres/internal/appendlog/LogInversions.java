package dev.outboxjava.postgres.internal.appendlog;

import static dev.outboxjava.postgres.internal.OutboxTable.EVENT_KEY;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.column;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.KEPT;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.XACT_ID;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.XID8;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.tableOf;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.text;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.visibleInText;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.xid8;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Under per-key ordering, the events of a snapshot being worked through that its transaction order puts
 * after a later event of their own key: a transaction that locked another aggregate first has the lower
 * transaction id, yet appended to a key after the writer it waited for. The log is read in transaction
 * order, so such an event is still unread when the later one comes up; the lease parks the later one
 * until the earlier has been taken.
 *
 * <p>A snapshot's events are fixed once it is taken, so they are found once per snapshot (and relay
 * process), in one read of the snapshot's part of the log, and then passed to each lease of it as three
 * arrays. Looking the later part of the snapshot up in the log for every key of every batch instead would
 * read a key's whole backlog again for each of its batches: a relay draining a deep backlog would pay for
 * it quadratically.
 */
final class LogInversions {

    private static final Field<Long> EARLIER_MAX = field(name("earlier_max"), SQLDataType.BIGINT);

    /** The events found for one snapshot, in sequence order; none for most snapshots. */
    record Found(String done, String upto, String[] keys, String[] xacts, Long[] seqs) {

        static final Found NONE = new Found("", "", new String[0], new String[0], new Long[0]);

        boolean isFor(String doneSnapshot, String uptoSnapshot) {
            return done.equals(doneSnapshot) && upto.equals(uptoSnapshot);
        }

        /** Binds the three arrays from {@code index} on; returns the next index. */
        int bind(PreparedStatement statement, int index) throws SQLException {
            Connection connection = statement.getConnection();
            statement.setArray(index++, connection.createArrayOf("text", keys));
            statement.setArray(index++, connection.createArrayOf("text", xacts));
            statement.setArray(index++, connection.createArrayOf("bigint", seqs));
            return index;
        }
    }

    /**
     * The three arrays a lease binds, as a table {@code alias (event_key, xact_id, seq)}; its placeholders
     * are bound by {@link Found#bind}.
     */
    static Table<Record> bound(String alias) {
        return DSL.table(
                        "unnest({0}, {1}, {2})",
                        bind(SQLDataType.CLOB.array()),
                        DSL.cast(bind(SQLDataType.CLOB.array()), XID8.array()),
                        bind(SQLDataType.BIGINT.array()))
                .as(alias, EVENT_KEY.getName(), XACT_ID.getName(), SEQ.getName());
    }

    /**
     * For the state-table read: an event parked because an earlier event of its key was still unread in the
     * snapshot being worked through waits until the log read has taken that one. Bound by
     * {@link #bindEarlierUnread}.
     */
    static Condition earlierUnread(Table<Record> candidate) {
        Table<Record> un = bound("un");
        return DSL.exists(DSL.selectOne()
                .from(un)
                .where(column(un, EVENT_KEY).eq(column(candidate, EVENT_KEY)))
                .and(column(un, SEQ).lt(column(candidate, SEQ)))
                .and(DSL.row(column(un, XACT_ID), column(un, SEQ))
                        .gt(DSL.row(xid8(bind(SQLDataType.CLOB)), bind(SQLDataType.BIGINT)))));
    }

    /** Binds {@link #earlierUnread} from {@code index} on, for the position's snapshot; returns the next index. */
    int bindEarlierUnread(PreparedStatement statement, int index, LogLease.Position position) throws SQLException {
        Found unread = position.started() ? find(statement.getConnection(), position) : Found.NONE;
        int p = unread.bind(statement, index);
        statement.setString(p++, position.lastXact());
        statement.setLong(p++, position.lastSeq());
        return p;
    }

    private final String sql;
    /** The last snapshot's: the next lease of the same snapshot reuses them. */
    private volatile Found last = Found.NONE;

    LogInversions(Identifiers.TableName table) {
        Table<Record> t = tableOf(table);
        // the snapshot's part of the log, as the lease reads it: transactions in progress when done was
        // taken, then those begun since, each seen by upto
        Condition keyed = EVENT_KEY.isNotNull().and(DSL.not(DSL.condition(KEPT)));
        var inProgress = DSL.select(EVENT_KEY, XACT_ID, SEQ)
                .from(t)
                .where(XACT_ID.eq(DSL.any(LogSql.seenBy(bind(SQLDataType.CLOB), bind(SQLDataType.CLOB)))))
                .and(SEQ.ge(bind(SQLDataType.BIGINT)))
                .and(keyed);
        var begunSince = DSL.select(EVENT_KEY, XACT_ID, SEQ)
                .from(t)
                .where(XACT_ID.ge(xid8(bind(SQLDataType.CLOB))))
                .and(XACT_ID.lt(xid8(bind(SQLDataType.CLOB))))
                .and(visibleInText(XACT_ID, bind(SQLDataType.CLOB)))
                .and(SEQ.ge(bind(SQLDataType.BIGINT)))
                .and(keyed);
        Table<?> r = inProgress.unionAll(begunSince).asTable("r");
        Table<?> w = DSL.select(
                        column(r, EVENT_KEY),
                        column(r, XACT_ID),
                        column(r, SEQ),
                        DSL.max(column(r, SEQ))
                                .over(DSL.partitionBy(column(r, EVENT_KEY))
                                        .orderBy(column(r, XACT_ID), column(r, SEQ))
                                        .rowsBetweenUnboundedPreceding()
                                        .andPreceding(1))
                                .as(EARLIER_MAX.getUnqualifiedName()))
                .from(r)
                .asTable("w");
        Field<String> key = column(w, EVENT_KEY);
        this.sql = PreparedSql.render(DSL.select(
                        DSL.coalesce(
                                DSL.arrayAgg(key).orderBy(column(w, SEQ)),
                                DSL.inline("{}").cast(SQLDataType.CLOB.array())),
                        DSL.coalesce(
                                DSL.arrayAgg(text(column(w, XACT_ID))).orderBy(column(w, SEQ)),
                                DSL.inline("{}").cast(SQLDataType.CLOB.array())),
                        DSL.coalesce(
                                DSL.arrayAgg(column(w, SEQ)).orderBy(column(w, SEQ)),
                                DSL.inline("{}").cast(SQLDataType.BIGINT.array())))
                .from(w)
                .where(column(w, EARLIER_MAX).gt(column(w, SEQ))));
    }

    /** The statement, to EXPLAIN; bind it with {@link #bindFor}. */
    String sql() {
        return sql;
    }

    /** The events of the snapshot {@code upto} not seen by {@code done} that wait for a later one of their key. */
    Found find(Connection connection, LogLease.Position position) throws SQLException {
        Found cached = last;
        if (cached.isFor(position.done(), position.upto())) {
            return cached;
        }
        Found found;
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            bindFor(statement, position);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                found = new Found(
                        position.done(), position.upto(), (String[]) arrayOf(rs, 1), (String[]) arrayOf(rs, 2), (Long[])
                                arrayOf(rs, 3));
            }
        }
        last = found;
        return found;
    }

    /** Binds {@link #sql()} for the snapshot of {@code position}. */
    static void bindFor(PreparedStatement statement, LogLease.Position position) throws SQLException {
        statement.setString(1, position.doneXip());
        statement.setString(2, position.upto());
        statement.setLong(3, position.floor());
        statement.setString(4, position.doneXmax());
        statement.setString(5, position.uptoXmax());
        statement.setString(6, position.upto());
        statement.setLong(7, position.floor());
    }

    private static Object arrayOf(ResultSet rs, int column) throws SQLException {
        Array array = rs.getArray(column);
        try {
            return array.getArray();
        } finally {
            array.free();
        }
    }
}
