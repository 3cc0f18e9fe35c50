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
import static dev.outboxjava.postgres.internal.PreparedSql.bind;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.IDS;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.KEPT;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.KEYS;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.SEQS;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.XACT_ID;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.tableOf;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.text;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.visibleInText;
import static dev.outboxjava.postgres.internal.appendlog.LogSql.xid8;
import static dev.outboxjava.postgres.internal.appendlog.TableGenerations.GEN;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.time.Instant;
import java.util.List;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The log read of the append-only layout's lease ({@link LogLease}), one statement: the new events of the
 * snapshot being worked through, in {@code (xact_id, seq)} order, each leased, parked as a pending state
 * row (not due, or held behind its key) or left in the log for a later lease (held only briefly, with
 * nothing leasable after it). The leased ones get one lease row together. Under per-key ordering the keys
 * are looked up in the state and lease tables, never in the log.
 */
final class LogReadSql {

    private static final Field<Instant> AT = field(name("at"), SQLDataType.INSTANT);
    private static final Field<Boolean> LEASE_IT = field(name("lease_it"), SQLDataType.BOOLEAN);
    private static final Field<Boolean> WAITS = field(name("waits"), SQLDataType.BOOLEAN);
    private static final Field<Boolean> LATER = field(name("leasable_later"), SQLDataType.BOOLEAN);
    private static final Field<Boolean> LEFT = field(name("left_in_log"), SQLDataType.BOOLEAN);
    private static final Field<Boolean> STOP = field(name("stop"), SQLDataType.BOOLEAN);
    private static final Field<Instant> BRIEF_SINCE = field(name("brief_since"), SQLDataType.INSTANT);
    private static final Field<Instant> HELD_SINCE = field(name("held_since"), SQLDataType.INSTANT);

    private static final Field<Long> WRITTEN = field(name("written"), SQLDataType.BIGINT);
    private static final Field<Long> FIRST_UNREAD = field(name("first_unread"), SQLDataType.BIGINT);

    private LogReadSql() {}

    /**
     * The statement for a table; binds as {@link LogLease#bindFresh} sets them.
     *
     * @param perKey whether events held behind their key are left for later
     * @param holdsFailed whether a dead letter holds its key
     */
    static String render(Identifiers.TableName table, boolean perKey, boolean holdsFailed) {
        Table<Record> t = tableOf(table);
        Table<Record> s = tableOf(LogLayoutDdl.stateTable(table));
        Table<Record> l = tableOf(LogLayoutDdl.leaseTable(table));
        // the log read: events of transactions in progress when done was taken, then of those begun since
        Field<?>[] logColumns = {
            ID,
            SEQ,
            TYPE,
            SOURCE,
            EVENT_KEY,
            DESTINATION,
            ROUTING_KEY,
            CONTENT_TYPE,
            PAYLOAD,
            HEADERS,
            MAX_ATTEMPTS,
            NEXT_ATTEMPT_AT,
            CREATED_AT,
            SUBJECT,
            DATA_SCHEMA,
            XACT_ID
        };
        var inProgress = DSL.select(logColumns)
                .from(t)
                .where(XACT_ID.eq(DSL.any(LogSql.seenBy(bind(SQLDataType.CLOB), bind(SQLDataType.CLOB)))))
                .and(DSL.row(XACT_ID, SEQ).ge(DSL.row(xid8(bind(SQLDataType.CLOB)), bind(SQLDataType.BIGINT))))
                .and(SEQ.ge(bind(SQLDataType.BIGINT)))
                .and(DSL.not(DSL.condition(KEPT)))
                .orderBy(XACT_ID, SEQ)
                .limit(bind(SQLDataType.INTEGER));
        var begunSince = DSL.select(logColumns)
                .from(t)
                .where(DSL.row(XACT_ID, SEQ).ge(DSL.row(xid8(bind(SQLDataType.CLOB)), bind(SQLDataType.BIGINT))))
                .and(XACT_ID.lt(xid8(bind(SQLDataType.CLOB))))
                .and(visibleInText(XACT_ID, bind(SQLDataType.CLOB)))
                .and(SEQ.ge(bind(SQLDataType.BIGINT)))
                .and(DSL.not(DSL.condition(KEPT)))
                .orderBy(XACT_ID, SEQ)
                .limit(bind(SQLDataType.INTEGER));
        CommonTableExpression<?> fresh = name("f")
                .as(inProgress.unionAll(begunSince).orderBy(XACT_ID, SEQ).limit(bind(SQLDataType.INTEGER)));
        CommonTableExpression<?> values = name("v")
                .as(DSL.select(
                        DSL.cast(bind(SQLDataType.UUID), SQLDataType.UUID).as(LEASE_ID.getUnqualifiedName()),
                        DSL.cast(bind(SQLDataType.INSTANT), SQLDataType.INSTANT).as(AT.getUnqualifiedName()),
                        DSL.cast(bind(SQLDataType.INSTANT), SQLDataType.INSTANT).as(BRIEF_SINCE.getUnqualifiedName()),
                        DSL.cast(bind(SQLDataType.SMALLINT), SQLDataType.SMALLINT)
                                .as(GEN.getUnqualifiedName())));
        Table<Record> f = DSL.table(name("f"));
        Table<Record> v = DSL.table(name("v"));
        Table<Record> hk = DSL.table(name("hk"));
        Condition leaseIt = due(f, v);
        Condition waits = DSL.falseCondition();
        if (perKey) {
            Table<Record> h = s.as("h");
            Condition holds =
                    column(h, STATUS).in(statusLiteral(EventStatus.IN_FLIGHT), statusLiteral(EventStatus.PENDING));
            if (holdsFailed) {
                holds = holds.or(column(h, STATUS).eq(statusLiteral(EventStatus.FAILED)));
            }
            Table<Record> earlier = DSL.table(name("nd")).as("e");
            Condition heldInState = DSL.exists(DSL.selectOne()
                    .from(h)
                    .where(column(h, EVENT_KEY).eq(column(f, EVENT_KEY)))
                    .and(holds));
            // per key the order is the sequence's, whatever the transactions' ids: a transaction that locked
            // another aggregate first has the lower id but appended after the writer it waited for
            Condition behindNotDue = DSL.exists(DSL.selectOne()
                    .from(earlier)
                    .where(column(earlier, EVENT_KEY).eq(column(f, EVENT_KEY)))
                    .and(column(earlier, SEQ).lt(column(f, SEQ))));
            // an earlier event of the key that this read does not reach (it comes later in the snapshot's
            // transaction order): the event is parked, and leased from the state table after that one
            Table<Record> bk = DSL.table(name("bk"));
            Condition behindUnread = DSL.exists(DSL.selectOne()
                    .from(bk)
                    .where(column(bk, EVENT_KEY).eq(column(f, EVENT_KEY)))
                    .and(column(bk, FIRST_UNREAD).lt(column(f, SEQ))));
            Field<String> heldKey = column(hk, EVENT_KEY);
            leaseIt = leaseIt.and(column(f, EVENT_KEY)
                    .isNull()
                    .or(column(f, EVENT_KEY)
                            .notIn(DSL.select(heldKey).from(hk))
                            .andNot(heldInState)
                            .andNot(behindNotDue)
                            .andNot(behindUnread)));
            // held only by a lease taken moments ago: worth waiting for in the log rather than parking
            waits = due(f, v)
                    .and(column(f, EVENT_KEY)
                            .in(DSL.select(heldKey)
                                    .from(hk, v.as("b"))
                                    .where(column(hk, HELD_SINCE).ge(column(v.as("b"), BRIEF_SINCE)))))
                    .andNot(heldInState)
                    .andNot(behindNotDue)
                    .andNot(behindUnread);
        }
        // the new events not due yet (scheduled; usually none), which hold back the later ones of their keys
        CommonTableExpression<?> notDue = name("nd")
                .as(DSL.select(column(f, EVENT_KEY), column(f, XACT_ID), column(f, SEQ))
                        .from(f, v)
                        .where(DSL.not(due(f, v))));
        // the keys of the new events in flight, each with its oldest lease, gathered once per statement
        Table<Record> lk = l.as("lk");
        Field<String> unnestedKey = DSL.function("unnest", SQLDataType.CLOB, column(lk, KEYS));
        CommonTableExpression<?> heldKeys = name("hk")
                .as(DSL.select(
                                unnestedKey.as(EVENT_KEY.getUnqualifiedName()),
                                DSL.min(column(lk, LEASED_AT)).as(HELD_SINCE.getUnqualifiedName()))
                        .from(lk)
                        .groupBy(DSL.inline(1)));
        // per key, the first sequence of the key's events that the snapshot's transaction order puts after
        // this read although a later event of the key comes before (found once per snapshot: LogInversions)
        Table<Record> fl = DSL.table(name("fl"));
        CommonTableExpression<?> lastRead = name("fl")
                .as(DSL.select(column(f, XACT_ID), column(f, SEQ))
                        .from(f)
                        .orderBy(column(f, XACT_ID).desc(), column(f, SEQ).desc())
                        .limit(DSL.inline(1)));
        Table<Record> un = LogInversions.bound("un");
        CommonTableExpression<?> firstUnread = name("bk")
                .as(DSL.select(column(un, EVENT_KEY), DSL.min(column(un, SEQ)).as(FIRST_UNREAD.getUnqualifiedName()))
                        .from(un, fl)
                        .where(DSL.row(column(un, XACT_ID), column(un, SEQ))
                                .gt(DSL.row(column(fl, XACT_ID), column(fl, SEQ))))
                        .groupBy(column(un, EVENT_KEY)));
        // materialized: the window below must not evaluate the conditions once per row of every frame
        CommonTableExpression<?> classified = name("g0")
                .asMaterialized(DSL.select(
                                f.asterisk(),
                                DSL.field(leaseIt).as(LEASE_IT.getUnqualifiedName()),
                                DSL.field(waits).as(WAITS.getUnqualifiedName()))
                        .from(f, v));
        Table<Record> g0 = DSL.table(name("g0"));
        CommonTableExpression<?> leasableLater = name("g1")
                .as(DSL.select(
                                g0.asterisk(),
                                // counted from the end, so that each frame extends the one before
                                DSL.coalesce(
                                                DSL.boolOr(DSL.condition(column(g0, LEASE_IT)))
                                                        .over(DSL.orderBy(
                                                                        column(g0, XACT_ID)
                                                                                .desc(),
                                                                        column(g0, SEQ)
                                                                                .desc())
                                                                .rowsBetweenUnboundedPreceding()
                                                                .andPreceding(1)),
                                                DSL.inline(false))
                                        .as(LATER.getUnqualifiedName()))
                        .from(g0));
        Table<Record> g1 = DSL.table(name("g1"));
        // the read stops at the first event that waits with nothing leasable after it: the position stays
        // before it, so a burst of events whose keys are in flight is left in the log, not parked row by row
        Condition stops = DSL.condition(column(g1, WAITS)).andNot(DSL.condition(column(g1, LATER)));
        CommonTableExpression<?> gathered = name("g")
                .as(DSL.select(
                                g1.asterisk(),
                                DSL.boolOr(stops)
                                        .over(DSL.orderBy(column(g1, XACT_ID), column(g1, SEQ))
                                                .rowsBetweenUnboundedPreceding()
                                                .andCurrentRow())
                                        .as(LEFT.getUnqualifiedName()),
                                DSL.field(stops.andNot(DSL.condition(DSL.coalesce(
                                                DSL.boolOr(stops)
                                                        .over(DSL.orderBy(column(g1, XACT_ID), column(g1, SEQ))
                                                                .rowsBetweenUnboundedPreceding()
                                                                .andPreceding(1)),
                                                DSL.inline(false)))))
                                        .as(STOP.getUnqualifiedName()))
                        .from(g1));
        Table<Record> g = DSL.table(name("g"));
        // not due, or held behind its key: a pending state row; held, in the generation being written (it is
        // leased again within moments), not due, kept (it may wait for long)
        CommonTableExpression<?> stateRows = name("st")
                .as(DSL.insertInto(
                                s,
                                ID,
                                SEQ,
                                EVENT_KEY,
                                STATUS,
                                ATTEMPTS,
                                NEXT_ATTEMPT_AT,
                                TYPE,
                                DESTINATION,
                                CREATED_AT,
                                GEN)
                        .select(DSL.select(
                                        column(g, ID),
                                        column(g, SEQ),
                                        column(g, EVENT_KEY),
                                        statusLiteral(EventStatus.PENDING),
                                        DSL.inline(0),
                                        column(g, NEXT_ATTEMPT_AT),
                                        column(g, TYPE),
                                        column(g, DESTINATION),
                                        column(g, CREATED_AT),
                                        DSL.when(due(g, v), column(v, GEN))
                                                .otherwise(DSL.inline(ParkingGenerations.KEPT)))
                                .from(g, v)
                                .where(DSL.not(DSL.condition(column(g, LEASE_IT))))
                                .andNot(DSL.condition(column(g, LEFT))))
                        .returning(DSL.inline(1)));
        // leased: one lease row (a second round of the same lease extends it)
        Field<String> gKey = column(g, EVENT_KEY);
        CommonTableExpression<?> leaseRow = name("lt")
                .as(DSL.insertInto(l, GEN, LEASE_ID, LEASED_AT, IDS, KEYS, SEQS)
                        .select(DSL.select(
                                        column(v, GEN),
                                        column(v, LEASE_ID),
                                        column(v, AT),
                                        DSL.arrayAgg(column(g, ID)).orderBy(column(g, SEQ)),
                                        DSL.coalesce(
                                                DSL.arrayAggDistinct(gKey).filterWhere(gKey.isNotNull()),
                                                DSL.inline("{}").cast(SQLDataType.CLOB.array())),
                                        DSL.arrayAgg(column(g, SEQ)).orderBy(column(g, SEQ)))
                                .from(g, v)
                                .where(DSL.condition(column(g, LEASE_IT)))
                                .groupBy(column(v, GEN), column(v, LEASE_ID), column(v, AT)))
                        .onConflict(LEASE_ID, GEN)
                        .doUpdate()
                        .set(IDS, DSL.arrayConcat(column(l, IDS), DSL.excluded(IDS)))
                        .set(KEYS, DSL.arrayConcat(column(l, KEYS), DSL.excluded(KEYS)))
                        .set(SEQS, DSL.arrayConcat(column(l, SEQS), DSL.excluded(SEQS)))
                        .returning(DSL.inline(1)));
        // the writes are joined in so that they run inside the statement's plan (EXPLAIN counts them)
        CommonTableExpression<?> written = name("w")
                .as(DSL.select(DSL.field(DSL.selectCount().from(DSL.table(name("st"))))
                        .plus(DSL.field(DSL.selectCount().from(DSL.table(name("lt")))))
                        .as(WRITTEN.getName())));
        Table<Record> w = DSL.table(name("w"));
        return PreparedSql.render(DSL.with(
                        perKey
                                ? List.of(fresh, values, notDue, heldKeys, lastRead, firstUnread)
                                : List.of(fresh, values))
                .with(classified)
                .with(leasableLater)
                .with(gathered)
                .with(stateRows)
                .with(leaseRow)
                .with(written)
                .select(
                        column(g, ID),
                        column(g, SEQ),
                        column(g, TYPE),
                        column(g, SOURCE),
                        column(g, EVENT_KEY),
                        column(g, DESTINATION),
                        column(g, ROUTING_KEY),
                        column(g, CONTENT_TYPE),
                        column(g, PAYLOAD),
                        column(g, HEADERS),
                        statusLiteral(EventStatus.IN_FLIGHT),
                        DSL.inline(0),
                        column(g, MAX_ATTEMPTS),
                        DSL.castNull(LAST_ERROR.getDataType()),
                        column(g, NEXT_ATTEMPT_AT),
                        column(g, CREATED_AT),
                        column(v, AT),
                        column(v, LEASE_ID),
                        DSL.castNull(SENT_AT.getDataType()),
                        column(g, SUBJECT),
                        column(g, DATA_SCHEMA),
                        text(column(g, XACT_ID)),
                        column(g, LEASE_IT),
                        column(g, STOP))
                .from(g, v, w)
                .where(column(w, WRITTEN).ge(DSL.inline(0L)))
                .and(DSL.not(DSL.condition(column(g, LEFT))).or(DSL.condition(column(g, STOP))))
                .orderBy(column(g, XACT_ID), column(g, SEQ)));
    }

    /**
     * A new log event is due when it was not scheduled for later (its next attempt is its creation time)
     * or its time has come. The first test keeps an event committed after the lease's {@code now} was
     * read, whose creation time is a little later, from counting as scheduled: it would otherwise go
     * through the state table (three writes, and dead rows a held horizon keeps) instead of being leased.
     */
    private static Condition due(Table<Record> fresh, Table<Record> values) {
        return column(fresh, NEXT_ATTEMPT_AT)
                .le(column(fresh, CREATED_AT))
                .or(column(fresh, NEXT_ATTEMPT_AT).le(column(values, AT)));
    }
}
