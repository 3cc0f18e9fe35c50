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
import static dev.outboxjava.postgres.internal.OutboxTable.statusIs;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;
import static dev.outboxjava.postgres.internal.appendlog.TableGenerations.GEN;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.DeadLetterSelector;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.postgres.internal.AsyncCommit;
import dev.outboxjava.postgres.internal.BacklogQuery;
import dev.outboxjava.postgres.internal.EventRows;
import dev.outboxjava.postgres.internal.HousekeepingQueries;
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
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.DataType;
import org.jooq.DeleteConditionStep;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.SQLDialect;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultDataType;
import org.jooq.impl.SQLDataType;

/**
 * The statements of the append-only layout ({@link LogLayoutDdl}): an event's row in the
 * log is never changed, so a transaction that holds back vacuum leaves no dead entries where the lease
 * reads.
 *
 * <p><b>Leasing.</b> One short transaction, one leaser at a time per table (a transaction-scoped
 * advisory lock), because the position it advances is shared. It first takes due events from the
 * state table (retries, released, requeued, scheduled events that fell due), oldest first, then new
 * events from the log, the way PgQ cuts batches: the position is a transaction snapshot {@code done}
 * (every event whose transaction it sees has been taken) and, while a lease's limit cuts the work short,
 * the snapshot {@code upto} being worked through and the last event taken of it. New events are those
 * whose transaction {@code upto} sees and {@code done} does not: transactions in progress when
 * {@code done} was taken (its {@code xip} list, looked up by index) and those begun since (an index range
 * from {@code done}'s {@code xmax}), in {@code (xact_id, seq)} order. A transaction still open is seen by
 * neither, so its events come in a later snapshot, whatever their sequence: commit-order safe, and a
 * long writing transaction holds back only its own events. The reads are index scans over rows that are
 * never updated, starting where the position is; their work depends on the batch, not on the history
 * or on what vacuum could not remove. The new events leased get one row together in the lease table (a
 * new event not yet due, or held behind its key, gets a pending state row) and a row is appended to
 * the position table.
 *
 * <p><b>Marks.</b> Fenced by lease id. A lease row whose events are all published is deleted and its
 * events appended to the sent table in one statement: one dead row per batch under a held horizon. In
 * both completion modes: deleting on publish, an event with a sent record is gone to every reader, and
 * its rows go when {@link LogPartitions} drops its partition (log rows are never deleted one by one).
 * Any other outcome first moves the lease row's events into the state table as in-flight rows of the
 * same lease; there, found by primary key, published deletes the state row and retry, dead letter and
 * release update it. The sweeper moves expired lease rows the same way before it sweeps.
 *
 * <p>The lease transaction commits asynchronously, as the in-place layout's lease does, for the same reasons (see {@link AsyncCommit}).
 *
 * <p>Every statement is built with jOOQ's DSL and rendered once, here ({@link PreparedSql}): the relay
 * runs the lease and the marks for every batch, so pgjdbc runs constant texts with typed bind values.
 * jOOQ knows neither {@code xid8} nor {@code pg_snapshot}: positions travel as their text and are cast
 * ({@link #XID8}, {@link #PG_SNAPSHOT}), and the snapshot functions are called by name with typed
 * arguments. A lease row's two arrays are unnested in step in a select list, one row per event.
 */
public final class LogLayoutQueries {

    private static final int PURGE_CHUNK = HousekeepingQueries.PURGE_CHUNK;

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
    private static final Field<UUID[]> IDS = field(name("ids"), SQLDataType.UUID.array());
    private static final Field<String[]> KEYS = field(name("keys"), SQLDataType.CLOB.array());
    static final Field<Long[]> SEQS = field(name("seqs"), SQLDataType.BIGINT.array());
    private static final Field<Instant> AT = field(name("at"), SQLDataType.INSTANT);
    private static final Field<Boolean> LEASE_IT = field(name("lease_it"), SQLDataType.BOOLEAN);
    private static final Field<Boolean> WAITS = field(name("waits"), SQLDataType.BOOLEAN);
    private static final Field<Boolean> LATER = field(name("leasable_later"), SQLDataType.BOOLEAN);
    private static final Field<Boolean> LEFT = field(name("left_in_log"), SQLDataType.BOOLEAN);
    private static final Field<Boolean> STOP = field(name("stop"), SQLDataType.BOOLEAN);
    private static final Field<Instant> BRIEF_SINCE = field(name("brief_since"), SQLDataType.INSTANT);
    private static final Field<Instant> HELD_SINCE = field(name("held_since"), SQLDataType.INSTANT);

    private static final Field<Long> WRITTEN = field(name("written"), SQLDataType.BIGINT);
    private static final Field<Object> UPTO_XMAX = field(name("upto_xmax"), XID8);
    private static final Field<Long> FIRST_UNREAD = field(name("first_unread"), SQLDataType.BIGINT);

    /**
     * Per key, how long a lease holds its keys "briefly": a new event whose key only such a lease holds, with
     * nothing leasable after it in the read, stays in the log for a later lease instead of becoming a pending
     * state row. Parking every event of a burst row by row would leave the state table's indexes full of
     * entries that a held horizon keeps, and parked events are leased through the state table, whose read
     * walks every parked event of a held key: when relays together lease every key of the backlog, parking
     * moves the whole backlog there and each lease walks all of it. A batch in flight usually completes
     * within milliseconds, but on a loaded machine a batch of 1,000 takes seconds, so the hold is well
     * above that; a lease stuck for longer (a relay gone, or hung until its publish timeout) no longer
     * holds the read back, and other keys wait for it at most this long.
     */
    static final Duration BRIEF_HOLD = Duration.ofSeconds(10);

    /** One leaser at a time per table, for this transaction; the lease commits asynchronously. */
    private static final String LOCK_SQL = PreparedSql.render(DSL.select(
            DSL.function("pg_advisory_xact_lock", SQLDataType.OTHER, bind(SQLDataType.BIGINT)),
            AsyncCommit.THIS_TRANSACTION));

    private final long advisoryLockKey;
    private final boolean perKey;
    private final CompletionMode completionMode;
    private final String retryLeaseSql;
    private final String positionSql;
    private final String freshLeaseSql;
    private final String advanceSql;
    private final String publishedSql;
    private final String publishedLeaseSql;
    private final String materializeLeaseSql;
    private final String materializeExpiredSql;
    private final String trimPositionsSql;
    private final String purgeSentSql;
    private final String purgeFailedSql;
    private final String countsSql;
    private final String oldestPendingSql;
    private final String findSql;
    private final String deadLettersSql;
    private final String retryingSql;
    private final String countRetryingSql;
    private final String countCreatedBeforeSql;
    private final String requeueSql;
    private final String requeueByIdsSql;
    private final String requeueByTypeSql;
    private final String probeSql;
    private final MarkQueries stateMarks;
    private final HousekeepingQueries stateHousekeeping;
    private final BacklogQuery backlog;
    private final LogPartitions partitions;
    private final LeaseGenerations generations;
    private final ParkingGenerations parking;

    public LogLayoutQueries(Identifiers.TableName table, CompletionMode completionMode) {
        this(table, completionMode, Ordering.none());
    }

    /**
     * The statements for a table; under per-key ordering a lease also leaves for later, as pending state
     * rows, the events whose key an earlier event holds (in flight, waiting for a retry or a schedule, or
     * dead-lettered when the ordering holds keys). An event held only by a lease younger than
     * {@link #BRIEF_HOLD}, with nothing leasable after it in the read, is left in the log instead: the
     * position stops before it. The keys are looked up in the state and lease tables, never in the log.
     */
    public LogLayoutQueries(Identifiers.TableName table, CompletionMode completionMode, Ordering ordering) {
        this.perKey = ordering.isPerKey();
        this.advisoryLockKey = ("outbox-log-lease:" + table.display()).hashCode() * 0x9E3779B97F4A7C15L;
        this.completionMode = completionMode;
        Table<Record> t = tableOf(table);
        Table<Record> s = tableOf(LogLayoutDdl.stateTable(table));
        Table<Record> p = tableOf(LogLayoutDdl.positionTable(table));
        Table<Record> d = tableOf(LogLayoutDdl.sentTable(table));
        Table<Record> l = tableOf(LogLayoutDdl.leaseTable(table));
        Table<Record> events = tableOf(LogLayoutDdl.eventsView(table));
        Table<Record> pending = tableOf(LogLayoutDdl.pendingView(table));
        Table<Record> inFlight = tableOf(LogLayoutDdl.inFlightView(table));
        Table<Record> floor = tableOf(LogLayoutDdl.floorTable(table));
        boolean holdsFailed = ordering.deadLetterHoldsKey();
        Table<Record> e = t.as("e");

        // the state-table read of the lease: due events, oldest first
        Table<Record> c = s.as("c");
        Condition due = column(c, STATUS)
                .eq(statusLiteral(EventStatus.PENDING))
                .and(column(c, NEXT_ATTEMPT_AT).le(bind(SQLDataType.INSTANT)));
        if (perKey) {
            Table<Record> b = s.as("b");
            Condition holds = column(b, STATUS)
                    .eq(statusLiteral(EventStatus.IN_FLIGHT))
                    .or(column(b, STATUS)
                            .eq(statusLiteral(EventStatus.PENDING))
                            .and(column(b, NEXT_ATTEMPT_AT).gt(bind(SQLDataType.INSTANT))));
            if (holdsFailed) {
                holds = holds.or(column(b, STATUS).eq(statusLiteral(EventStatus.FAILED)));
            }
            // an event parked because an earlier event of its key was still unread in the snapshot being worked
            // through waits until the log read has taken that one
            Table<?> at = lastPosition(p);
            Table<Record> lg = t.as("lg");
            Condition earlierUnread = DSL.exists(DSL.selectOne()
                    .from(at)
                    .join(lg)
                    .on(column(lg, EVENT_KEY).eq(column(c, EVENT_KEY)))
                    .where(column(at, UPTO).isNotNull())
                    .and(DSL.row(column(lg, XACT_ID), column(lg, SEQ))
                            .gt(DSL.row(column(at, XACT_ID), column(at, SEQ))))
                    .and(column(lg, XACT_ID).lt(DSL.function("pg_snapshot_xmax", XID8, column(at, UPTO))))
                    .and(column(lg, SEQ).lt(column(c, SEQ)))
                    .and(visibleIn(column(lg, XACT_ID), column(at, UPTO)))
                    .andNot(visibleIn(column(lg, XACT_ID), column(at, DONE))));
            due = due.and(column(c, EVENT_KEY)
                    .isNull()
                    .or(column(c, EVENT_KEY)
                            .notIn(leasedKeys(l))
                            .andNotExists(DSL.selectOne()
                                    .from(b)
                                    .where(column(b, EVENT_KEY).eq(column(c, EVENT_KEY)))
                                    .and(column(b, SEQ).lt(column(c, SEQ)))
                                    .and(holds))
                            .andNot(earlierUnread)));
        }
        CommonTableExpression<?> retried = name("r")
                .as(DSL.update(s)
                        .set(STATUS, statusLiteral(EventStatus.IN_FLIGHT))
                        .set(LEASE_ID, bind(SQLDataType.UUID))
                        .set(LEASED_AT, bind(SQLDataType.INSTANT))
                        .where(ID.in(DSL.select(column(c, ID))
                                .from(c)
                                .where(due)
                                .orderBy(column(c, SEQ))
                                .limit(bind(SQLDataType.INTEGER))
                                .forUpdate()
                                .skipLocked()))
                        .returning(ID, SEQ, STATUS, ATTEMPTS, LAST_ERROR, NEXT_ATTEMPT_AT, LEASED_AT, LEASE_ID));
        Table<Record> r = DSL.table(name("r")).as("s");
        this.retryLeaseSql = PreparedSql.render(DSL.with(retried)
                .select(stateEventColumns(r, e))
                .from(r)
                .join(e)
                .on(column(e, ID).eq(column(r, ID)).and(column(e, SEQ).eq(column(r, SEQ)))));

        // the position: the last row of the position table, or the start (a snapshot that sees nothing)
        Table<?> last = lastPosition(p);
        Field<Object> done = column(last, DONE);
        Field<Object> upto = DSL.coalesce(column(last, UPTO), snapshotFunction("pg_current_snapshot"));
        this.positionSql = PreparedSql.render(DSL.select(
                        text(done),
                        text(upto),
                        DSL.field(column(last, UPTO).isNull()),
                        text(column(last, XACT_ID)),
                        column(last, SEQ),
                        text(DSL.array(DSL.select(DSL.function("pg_snapshot_xip", XID8, done)))),
                        text(DSL.function("pg_snapshot_xmax", XID8, done)),
                        text(DSL.function("pg_snapshot_xmax", XID8, upto)),
                        floorOf(floor.as("f")))
                .from(last));

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
                .where(XACT_ID.eq(DSL.any(DSL.cast(bind(SQLDataType.CLOB), XID8.array()))))
                .and(DSL.row(XACT_ID, SEQ).ge(DSL.row(xid8(bind(SQLDataType.CLOB)), bind(SQLDataType.BIGINT))))
                .and(visibleInText(XACT_ID, bind(SQLDataType.CLOB)))
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
                                .as(GEN.getUnqualifiedName()),
                        snapshot(bind(SQLDataType.CLOB)).as(DONE.getUnqualifiedName()),
                        snapshot(bind(SQLDataType.CLOB)).as(UPTO.getUnqualifiedName()),
                        xid8(bind(SQLDataType.CLOB)).as(UPTO_XMAX.getUnqualifiedName())));
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
        // per key, the first sequence of each key's events after this read in the snapshot being worked through
        // (the log's key index, from the read's last event on; every condition is a column of the index, so it
        // can be read alone: dead letters kept apart are old, seen by done, and need no condition of their own)
        Table<Record> fl = DSL.table(name("fl"));
        CommonTableExpression<?> lastRead = name("fl")
                .as(DSL.select(column(f, XACT_ID), column(f, SEQ))
                        .from(f)
                        .orderBy(column(f, XACT_ID).desc(), column(f, SEQ).desc())
                        .limit(DSL.inline(1)));
        Table<Record> fk = DSL.table(name("fk"));
        Table<Record> un = t.as("un");
        CommonTableExpression<?> readKeys = name("fk")
                .as(DSL.selectDistinct(column(f, EVENT_KEY))
                        .from(f)
                        .where(column(f, EVENT_KEY).isNotNull()));
        CommonTableExpression<?> firstUnread = name("bk")
                .as(DSL.select(
                                column(fk, EVENT_KEY),
                                DSL.field(DSL.select(DSL.min(column(un, SEQ)))
                                                .from(un)
                                                .where(column(un, EVENT_KEY).eq(column(fk, EVENT_KEY)))
                                                .and(DSL.row(column(un, XACT_ID), column(un, SEQ))
                                                        .gt(DSL.row(column(fl, XACT_ID), column(fl, SEQ))))
                                                .and(column(un, XACT_ID).lt(column(v, UPTO_XMAX)))
                                                .and(visibleIn(column(un, XACT_ID), column(v, UPTO)))
                                                .andNot(visibleIn(column(un, XACT_ID), column(v, DONE))))
                                        .as(FIRST_UNREAD.getUnqualifiedName()))
                        .from(fk, fl, v));
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
        this.freshLeaseSql = PreparedSql.render(DSL.with(
                        perKey
                                ? List.of(fresh, values, notDue, heldKeys, lastRead, readKeys, firstUnread)
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
        this.advanceSql = PreparedSql.render(DSL.insertInto(p, DONE, UPTO, XACT_ID, SEQ)
                .values(
                        snapshot(bind(SQLDataType.CLOB)), snapshot(bind(SQLDataType.CLOB)),
                        xid8(bind(SQLDataType.CLOB)), bind(SQLDataType.BIGINT)));

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
        this.materializeLeaseSql = materialize(t, s, DSL.deleteFrom(l).where(LEASE_ID.eq(bind(SQLDataType.UUID))));
        this.materializeExpiredSql = materialize(
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
        this.trimPositionsSql = PreparedSql.render(DSL.deleteFrom(p)
                .where(POSITION_ID.lt(DSL.field(DSL.select(DSL.max(POSITION_ID)).from(p)))));
        this.purgeSentSql = purge(t, d, DSL.noCondition());
        this.purgeFailedSql = purge(t, s, column(d.as("x"), STATUS).eq(statusLiteral(EventStatus.FAILED)));
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
        this.deadLettersSql = PreparedSql.render(DSL.select(stateEventColumns(st, e))
                .from(st)
                .join(e)
                .on(sameEvent)
                .where(column(st, STATUS).eq(statusLiteral(EventStatus.FAILED)))
                .orderBy(column(st, SEQ))
                .offset(bind(SQLDataType.INTEGER))
                .limit(bind(SQLDataType.INTEGER)));
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
        this.requeueSql = requeue(st, DSL.noCondition());
        this.requeueByIdsSql = requeue(st, column(st, ID).eq(DSL.any(bind(SQLDataType.UUID.array()))));
        this.requeueByTypeSql = requeue(
                st,
                DSL.exists(DSL.selectOne()
                        .from(e)
                        .where(sameEvent)
                        .and(column(e, TYPE).eq(bind(SQLDataType.CLOB)))));
        this.probeSql = PreparedSql.render(DSL.selectOne().from(t).where(DSL.falseCondition()));
        OutboxTable state = new OutboxTable(LogLayoutDdl.stateTable(table));
        this.stateMarks = new MarkQueries(state, CompletionMode.KEEP_SENT);
        this.stateHousekeeping = new HousekeepingQueries(state);
        // per key, the backlog also needs the dead letters (which may hold keys)
        this.partitions = new LogPartitions(table, completionMode);
        this.generations = new LeaseGenerations(table);
        this.parking = new ParkingGenerations(table);
        this.backlog = perKey
                ? new BacklogQuery(new OutboxTable(LogLayoutDdl.waitingView(table)), ordering)
                : new BacklogQuery(new OutboxTable(LogLayoutDdl.pendingView(table)), Ordering.none());
    }

    /** The log read of the lease, to EXPLAIN; bind it with {@link #bindFresh}. */
    public String freshLeaseSql() {
        return freshLeaseSql;
    }

    /** The position read of the lease, to EXPLAIN. No binds. */
    public String positionSql() {
        return positionSql;
    }

    /** The state-table read of the lease, to EXPLAIN. Binds: lease id, now, now, limit. */
    public String retryLeaseSql() {
        return retryLeaseSql;
    }

    /** Leases up to {@code limit} events in one short transaction; they come back in sequence order. */
    public List<OutboxEvent> lease(Connection connection, UUID leaseId, int limit, Instant now) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        if (autoCommit) {
            generations.emptyIdle(connection, now);
            parking.emptyIdle(connection, now);
            connection.setAutoCommit(false);
        }
        try {
            try (PreparedStatement lock = connection.prepareStatement(LOCK_SQL)) {
                lock.setLong(1, advisoryLockKey);
                lock.execute();
            }
            OffsetDateTime at = Jdbc.timestamptz(now);
            List<OutboxEvent> events = new ArrayList<>();
            try (PreparedStatement statement = connection.prepareStatement(retryLeaseSql)) {
                int p = 1;
                statement.setObject(p++, leaseId);
                statement.setObject(p++, at);
                statement.setObject(p++, at);
                if (perKey) {
                    statement.setObject(p++, at);
                }
                statement.setInt(p, limit);
                readInto(statement, events);
            }
            // a second round when the first finished its snapshot: the events committed since are taken at once
            for (int round = 0; round < 2 && events.size() < limit; round++) {
                Position position = readPosition(connection);
                int wanted = limit - events.size();
                Taken taken;
                try (PreparedStatement statement = connection.prepareStatement(freshLeaseSql)) {
                    bindFresh(statement, position, leaseId, now, wanted);
                    taken = readFresh(statement, events);
                }
                boolean finished = !taken.stopped() && taken.count() < wanted;
                if (taken.count() == 0 && (taken.stopped() || !position.started())) {
                    break; // nothing new, or nothing to take yet: the position stays (no row per empty lease)
                }
                try (PreparedStatement statement = connection.prepareStatement(advanceSql)) {
                    statement.setString(1, finished ? position.upto() : position.done());
                    statement.setString(2, finished ? null : position.upto());
                    statement.setString(3, finished ? "0" : taken.lastXact());
                    statement.setLong(4, finished ? 0 : taken.lastSeq());
                    statement.executeUpdate();
                }
                if (!finished) {
                    break;
                }
            }
            connection.commit();
            events.sort(Comparator.comparingLong(OutboxEvent::sequence));
            return Collections.unmodifiableList(events);
        } catch (SQLException | RuntimeException | Error e) {
            try {
                connection.rollback();
            } catch (SQLException rollbackFailure) {
                e.addSuppressed(rollbackFailure);
            }
            throw e;
        } finally {
            if (autoCommit) {
                try {
                    connection.setAutoCommit(true);
                } catch (SQLException ignored) {
                    // the connection is broken; the pool discards it
                }
            }
        }
    }

    /**
     * Where the log has been read to: {@code done} (every event its snapshot sees is taken) and {@code upto},
     * the snapshot being worked through (a fresh one when the last lease finished its own), with the
     * last event taken of it ({@code started}: whether that snapshot was already in use); {@code floor}:
     * every event of a lower sequence has been taken (see {@link LogPartitions}), so the partitions below
     * it are left out of the log read.
     */
    public record Position(
            String done,
            String upto,
            boolean started,
            String lastXact,
            long lastSeq,
            String doneXip,
            String doneXmax,
            String uptoXmax,
            long floor) {}

    /** Reads the position (in the lease's transaction, under its lock). */
    public Position readPosition(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(positionSql);
                ResultSet rs = statement.executeQuery()) {
            rs.next();
            boolean started = !rs.getBoolean(3);
            return new Position(
                    rs.getString(1),
                    rs.getString(2),
                    started,
                    started ? rs.getString(4) : "0",
                    started ? rs.getLong(5) : 0,
                    rs.getString(6),
                    rs.getString(7),
                    rs.getString(8),
                    rs.getLong(9));
        }
    }

    /** Binds the log read of a lease ({@link #freshLeaseSql()}); public so that tests can EXPLAIN it. */
    public void bindFresh(PreparedStatement statement, Position position, UUID leaseId, Instant now, int limit)
            throws SQLException {
        // events of transactions in progress when done was taken, then of transactions begun since. Each read
        // starts at (xact_id, seq) >= (last taken, its seq + 1): PostgreSQL estimates a row comparison by its
        // first column alone, and xact_id >= last counts the rest of the last transaction where > would count
        // none of it; with that estimate, a transaction of many events (a bulk append) was read whole and
        // sorted for every lease instead of read in index order
        statement.setString(1, position.doneXip());
        statement.setString(2, position.lastXact());
        statement.setLong(3, position.lastSeq() + 1);
        statement.setString(4, position.upto());
        // a bound on the partition key: the executor skips the partitions below the floor before it starts (and
        // the dead letters kept apart, always taken, are left out by the plan)
        statement.setLong(5, position.floor());
        statement.setInt(6, limit);
        // one lower bound for the index (two, a scalar and a row, would leave it scanning from the lower one):
        // the last event taken, or the first transaction that began after done was taken
        boolean pastDone = Long.parseUnsignedLong(position.lastXact()) >= Long.parseUnsignedLong(position.doneXmax());
        statement.setString(7, pastDone ? position.lastXact() : position.doneXmax());
        statement.setLong(8, pastDone ? position.lastSeq() + 1 : Long.MIN_VALUE);
        statement.setString(9, position.uptoXmax());
        statement.setString(10, position.upto());
        statement.setLong(11, position.floor());
        statement.setInt(12, limit);
        statement.setInt(13, limit);
        statement.setObject(14, leaseId);
        statement.setObject(15, Jdbc.timestamptz(now));
        statement.setObject(16, Jdbc.timestamptz(now.minus(BRIEF_HOLD)));
        statement.setShort(17, LeaseGenerations.of(now));
        statement.setString(18, position.done());
        statement.setString(19, position.upto());
        statement.setString(20, position.uptoXmax());
    }

    /**
     * What the log read took: {@code count} events up to {@code (lastXact, lastSeq)}; {@code stopped} when it
     * stopped before an event left in the log for a later lease (the snapshot is not used up).
     */
    private record Taken(int count, String lastXact, long lastSeq, boolean stopped) {}

    /** Reads the log rows a lease took: the due ones are leased, all count for the position. */
    private static Taken readFresh(PreparedStatement statement, List<OutboxEvent> leased) throws SQLException {
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

    /** Expired lease rows into the state table first, then expired in-flight state rows back to pending. */
    public int sweep(DSLContext dsl, Instant leasedBefore, int limit) {
        dsl.connection(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(materializeExpiredSql)) {
                statement.setObject(1, Jdbc.timestamptz(leasedBefore));
                statement.setInt(2, limit);
                statement.executeUpdate();
            }
        });
        return stateHousekeeping.sweep(dsl, leasedBefore, limit);
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

    public Backlog backlog(DSLContext dsl, Instant now) {
        return backlog.read(dsl, now);
    }

    public Optional<OutboxEvent> find(Connection connection, UUID eventId) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(findSql)) {
            statement.setObject(1, eventId);
            List<OutboxEvent> found = new ArrayList<>(1);
            readInto(statement, found);
            return found.stream().findFirst();
        }
    }

    public List<OutboxEvent> deadLetters(Connection connection, int offset, int limit) throws SQLException {
        return page(connection, deadLettersSql, offset, limit);
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

    public int requeue(Connection connection, DeadLetterSelector selector, Instant now) throws SQLException {
        String sql = requeueSql;
        if (selector instanceof DeadLetterSelector.ByIds byIds) {
            if (byIds.ids().isEmpty()) {
                return 0;
            }
            sql = requeueByIdsSql;
        } else if (selector instanceof DeadLetterSelector.ByType) {
            sql = requeueByTypeSql;
        }
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setObject(1, Jdbc.timestamptz(now));
            if (selector instanceof DeadLetterSelector.ByIds byIds) {
                statement.setArray(2, Jdbc.uuidArray(connection, byIds.ids()));
            } else if (selector instanceof DeadLetterSelector.ByType byType) {
                statement.setString(2, byType.type());
            }
            return statement.executeUpdate();
        }
    }

    public void probe(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(probeSql)) {
            statement.executeQuery().close();
        }
    }

    private static List<OutboxEvent> page(Connection connection, String sql, int offset, int limit)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setInt(1, offset);
            statement.setInt(2, limit);
            List<OutboxEvent> events = new ArrayList<>();
            readInto(statement, events);
            return events;
        }
    }

    private static void readInto(PreparedStatement statement, List<OutboxEvent> events) throws SQLException {
        try (ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                events.add(EventRows.toEvent(rs));
            }
        }
    }

    static Table<Record> tableOf(Identifiers.TableName name) {
        return new OutboxTable(name).table();
    }

    /** Log columns ({@code e}) and state columns ({@code s}) in {@link EventRows#COLUMNS}' order. */
    private static List<Field<?>> stateEventColumns(Table<?> s, Table<?> e) {
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

    /** The keys of the new events in flight, gathered once per statement (a hashed lookup per candidate). */
    private static Select<Record1<String>> leasedKeys(Table<Record> leases) {
        Table<Record> lk = leases.as("lk");
        return DSL.select(DSL.function("unnest", SQLDataType.CLOB, column(lk, KEYS)))
                .from(lk);
    }

    /** A lease row's events, one row each ({@code unnest} of its id and sequence arrays, in step). */
    private static Table<?> unnested(Table<?> leaseRows) {
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
    private static String materialize(Table<Record> t, Table<Record> s, DeleteConditionStep<Record> deleted) {
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

    /** Dead letters ({@code s}) back to pending, due at the bound time; {@code which} narrows them. */
    private static String requeue(Table<Record> s, Condition which) {
        return PreparedSql.render(DSL.update(s)
                .set(STATUS, statusLiteral(EventStatus.PENDING))
                .set(ATTEMPTS, DSL.inline(0))
                .set(NEXT_ATTEMPT_AT, bind(SQLDataType.INSTANT))
                .set(LEASE_ID, DSL.inline(null, SQLDataType.UUID))
                .set(LEASED_AT, DSL.inline(null, SQLDataType.INSTANT))
                .where(column(s, STATUS).eq(statusLiteral(EventStatus.FAILED)))
                .and(which));
    }

    /** {@code value::text}: a transaction id or snapshot read as its text. */
    static Field<String> text(Field<?> value) {
        return DSL.cast(value, SQLDataType.CLOB);
    }

    static Field<Object> xid8(Field<String> text) {
        return DSL.cast(text, XID8);
    }

    private static Field<Object> snapshot(Field<String> text) {
        return DSL.cast(text, PG_SNAPSHOT);
    }

    private static Field<Object> snapshotFunction(String function) {
        return DSL.function(function, PG_SNAPSHOT);
    }

    /** {@code pg_visible_in_snapshot(xact, ?::pg_snapshot)}: the snapshot sees the transaction's work. */
    private static Condition visibleInText(Field<Object> xact, Field<String> snapshotText) {
        return visibleIn(xact, snapshot(snapshotText));
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

    private static long single(PreparedStatement statement) throws SQLException {
        try (ResultSet rs = statement.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
