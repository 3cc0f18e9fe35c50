package dev.outboxjava.postgres.internal.inplace;

import static dev.outboxjava.postgres.internal.OutboxTable.EVENT_KEY;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASE_ID;
import static dev.outboxjava.postgres.internal.OutboxTable.NEXT_ATTEMPT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.XACT_ID;
import static dev.outboxjava.postgres.internal.OutboxTable.column;
import static dev.outboxjava.postgres.internal.OutboxTable.statusIs;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.internal.AsyncCommit;
import dev.outboxjava.postgres.internal.Jdbc;
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
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The lease statement under {@link Ordering.Mode#PER_KEY}: still one UPDATE per batch, taking per key
 * only the due events that no earlier event of the key holds back.
 *
 * <p>An earlier event of the same key holds a candidate back when it is in flight (another relay has
 * the key), pending but not due (it waits for a retry), dead-lettered (when the ordering holds keys),
 * or written by a transaction that is not yet older than every open one (see below). Because pending
 * due events never hold back later ones, a lease takes each key's contiguous run, and
 * {@code ORDER BY seq LIMIT} can only cut a run's tail.
 *
 * <p><b>Commit-order guard.</b> Sequences are drawn at insert, not at commit: a transaction that took
 * sequence N may commit after one that took N+1. Each row records the writing transaction
 * ({@code xact_id = pg_current_xact_id()}), and a keyed event is leased only once its transaction is
 * older than the oldest transaction still open ({@code xact_id < pg_snapshot_xmin(...)}): every
 * transaction that began writing before it has committed or rolled back, so no earlier event of its
 * key can still appear. The price: one long-running transaction holds back keyed events written
 * after it began, until it ends.
 *
 * <p><b>One leaser at a time.</b> Same-key exclusivity needs each lease to see the previous lease's
 * result, which {@code SKIP LOCKED} alone cannot give (a concurrent leaser would skip the locked head
 * of a key and take its tail). So a lease first takes a transaction-scoped advisory lock for the table,
 * then runs the UPDATE with a fresh snapshot. Leases are short (no broker call inside); the publishing
 * and marking of batches still run in parallel.
 *
 * <p><b>Held keys are looked up, not probed.</b> Events in flight (at most the relays' batches) and
 * pending events not yet due (found in the pending index's entries, not its rows) are gathered once
 * per lease into a map from key to the key's first held sequence: an uncorrelated sub-select, so
 * PostgreSQL runs it once. A candidate of a key held that way fails on one lookup, so a lease that
 * finds every hot key held walks the candidates once instead of probing each candidate's earlier
 * events (100,000 pending over 100 keys, all held: about 0.1 s instead of about a minute). Dead
 * letters are not gathered, because they are history that can grow without bound: under
 * {@code HOLD_KEY} a candidate that passes the lookup probes for an earlier event of its key that holds
 * it (in flight or dead-lettered), then for an earlier pending event that fails the commit-order guard.
 * Each probe descends an index of its own, {@code (event_key, seq)} over keyed events in flight or
 * dead-lettered and {@code (event_key, seq, xact_id)} over keyed pending events, with every condition
 * an index condition, so neither reads the rows. (The first probe names both statuses, as its index
 * does; asking for {@code 'failed'} alone would let the planner pick the dead letters' own index by
 * {@code seq}, which its statistics can make look cheap while it costs a walk over dead letters.)
 *
 * <p><b>A bounded window.</b> Each statement looks at no more than a window of pending rows, in sequence
 * order: the rows from a starting sequence up to the {@linkplain #windowRows(int) window's} last one,
 * found first by a walk of the pending index. Without the bound, a lease that finds every key held
 * (keys in flight in other batches, or one hot key waiting for its retry at the head of the backlog)
 * walks the whole backlog to come back empty, while holding the lock every other leaser waits for. A
 * lease's first window starts at the head, where keys freed since the last lease are found; a window
 * that leaves the batch short is followed, in a new transaction, by the next one, up to
 * {@link #MAX_WINDOWS_PER_LEASE} windows, except that after a window of held keys only a lease looks
 * further at most once per {@link #WALK_ON_INTERVAL} (see {@link #walkOnDue}). Past the head window a
 * lease goes on where the last one stopped, and the lease that reaches the end of the backlog starts the
 * walk over, so keys far behind a held run are reached within a few such walks, none of them long. A
 * window that does not start at the head cannot see the pending events before it, so a candidate is also
 * held back by any pending event of its key before the window (one probe of the key's own index).
 *
 * <p><b>A pinned plan.</b> The lease runs with sequential scans, bitmap scans and JIT compilation off for
 * its transaction. The planner cannot see from statistics that blockers are rare: it planned the probe
 * as a bitmap scan (reading every earlier event of the key) and, for a table with one hot key, as a
 * sequential scan per candidate. Disabling those makes the cost of switching them off look huge, which
 * would also trigger JIT compilation (about 0.7 s) on every lease; hence JIT off.
 *
 * <p>The transaction commits asynchronously, for the reasons given on {@link LeaseQuery}; the next
 * leaser sees its result at once all the same (visibility does not wait for the WAL flush).
 *
 * <p>Built with jOOQ and rendered once per table, as {@link LeaseQuery} and for the same reasons;
 * values are bound with their types, rows are read by position.
 */
public final class OrderedLeaseQuery {

    /**
     * The planner settings of the lease's transaction (see the class comment), as a select list: they
     * last until the transaction ends and never stay on a pooled connection.
     */
    public static final List<Field<String>> PLAN_SETTINGS = List.of(
            AsyncCommit.setLocal("enable_seqscan", "off"),
            AsyncCommit.setLocal("enable_bitmapscan", "off"),
            AsyncCommit.setLocal("jit", "off"));

    /**
     * Takes the table's lease lock, pins the plan and, as {@link LeaseQuery} does, lets the lease commit
     * asynchronously: one round trip.
     */
    private static final String LOCK_SQL = PreparedSql.render(DSL.select(Stream.concat(
                    Stream.of(
                            DSL.function("pg_advisory_xact_lock", SQLDataType.OTHER, bind(SQLDataType.BIGINT)),
                            AsyncCommit.THIS_TRANSACTION),
                    PLAN_SETTINGS.stream())
            .toList()));

    /** Windows one lease looks at, at most, before it returns what it found (see the class comment). */
    public static final int MAX_WINDOWS_PER_LEASE = 4;

    /** How often, at most, a process's lease looks past a window that held only held keys. */
    public static final Duration WALK_ON_INTERVAL = Duration.ofSeconds(1);

    /** The smallest window, in pending rows: small batches still look past a few held keys. */
    private static final int MIN_WINDOW_ROWS = 1_000;

    /** The sequence before every event: a window that starts here starts at the head of the backlog. */
    public static final long HEAD = 0;

    /** The sequence after every event: the bound of a window that reaches the end of the backlog. */
    public static final long END = Long.MAX_VALUE;

    private final long advisoryLockKey;
    private final String sql;
    private final String windowEndSql;
    /**
     * Where this process's next lease goes on after its head window. Shared by the process's relay threads
     * without a lock: a stale value costs a window, never order, since every window checks what lies before it.
     */
    private final AtomicLong resumeAt = new AtomicLong(HEAD);

    /** When a lease of this process last looked past a window of held keys only. */
    private final AtomicReference<Instant> lastWalkOn = new AtomicReference<>();

    public OrderedLeaseQuery(OutboxTable table, Ordering ordering) {
        // A stable 64-bit key per table; collisions with other users of advisory locks only serialize more.
        this.advisoryLockKey = ("outbox-lease:" + table.tableName().display()).hashCode() * 0x9E3779B97F4A7C15L;
        this.sql = sql(table, ordering.deadLetterHoldsKey());
        this.windowEndSql = windowEndSql(table);
    }

    /** Pending rows one statement of a lease of {@code limit} looks at: four batches' worth, at least 1,000. */
    public static int windowRows(int limit) {
        return Math.max(MIN_WINDOW_ROWS, 4 * limit);
    }

    /**
     * Leases up to {@code limit} events on {@code connection} (its auto-commit is switched off and restored
     * after), one short transaction per window; they come back in sequence order.
     */
    public List<OutboxEvent> lease(Connection connection, UUID leaseId, int limit, Instant now) throws SQLException {
        List<OutboxEvent> events = new ArrayList<>();
        long from = HEAD;
        boolean walkingOn = false;
        for (int window = 0; window < MAX_WINDOWS_PER_LEASE && events.size() < limit && from != END; window++) {
            Window leased = leaseInWindow(connection, leaseId, limit - events.size(), now, from);
            events.addAll(leased.events());
            if (leased.through() == END) {
                from = END;
            } else {
                // past the head, go on where the last lease stopped: the rows between were looked at then
                from = window == 0 ? Math.max(leased.through() + 1, resumeAt.get()) : leased.through() + 1;
                if (leased.events().isEmpty() && !walkingOn) {
                    if (!walkOnDue(now)) {
                        break;
                    }
                    walkingOn = true;
                }
            }
        }
        resumeAt.set(from == END ? HEAD : from);
        return Collections.unmodifiableList(events);
    }

    /**
     * Whether a lease whose window held only held keys may look further now: once per {@link #WALK_ON_INTERVAL}
     * per process. Keys in flight free up within moments, so relays that contend for a few keys lease the
     * head again rather than each walking on; a key waiting for a retry or dead-lettered holds its run
     * for long, and the walk past it goes on at that pace.
     */
    private boolean walkOnDue(Instant now) {
        Instant last = lastWalkOn.get();
        if (last != null && !now.isBefore(last) && now.isBefore(last.plus(WALK_ON_INTERVAL))) {
            return false;
        }
        lastWalkOn.set(now);
        return true;
    }

    /** What one window's statement leased, and the window's last sequence ({@link #END} at the backlog's end). */
    private record Window(List<OutboxEvent> events, long through) {}

    private Window leaseInWindow(Connection connection, UUID leaseId, int limit, Instant now, long from)
            throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        if (autoCommit) {
            connection.setAutoCommit(false);
        }
        try {
            try (PreparedStatement lock = connection.prepareStatement(LOCK_SQL)) {
                lock.setLong(1, advisoryLockKey);
                lock.execute();
            }
            long through = END;
            try (PreparedStatement windowEnd = connection.prepareStatement(windowEndSql)) {
                windowEnd.setLong(1, from);
                windowEnd.setInt(2, windowRows(limit) - 1);
                try (ResultSet row = windowEnd.executeQuery()) {
                    if (row.next()) {
                        through = row.getLong(1);
                    }
                }
            }
            List<OutboxEvent> events;
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                bindLease(statement, leaseId, now, limit, from, through);
                events = LeaseQuery.read(statement, limit);
            }
            connection.commit();
            return new Window(events, through);
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

    /** The lease statement's text, for EXPLAIN in tests; {@link #bindLease} sets its values. */
    public String sql() {
        return sql;
    }

    /**
     * Binds the lease statement: the lease's id and clock, the batch limit and the window, the pending rows
     * with sequences {@code from} to {@code through} ({@link #HEAD} and {@link #END} for the whole backlog).
     */
    public static void bindLease(
            PreparedStatement statement, UUID leaseId, Instant now, int limit, long from, long through)
            throws SQLException {
        OffsetDateTime at = Jdbc.timestamptz(now);
        statement.setObject(1, leaseId);
        statement.setObject(2, at);
        statement.setLong(3, from);
        statement.setLong(4, through);
        statement.setObject(5, at);
        statement.setObject(6, at);
        statement.setLong(7, from);
        statement.setLong(8, through);
        statement.setLong(9, from);
        statement.setInt(10, limit);
    }

    /** The sequence of the window's last pending row: binds the window's first sequence and its rows less one. */
    private static String windowEndSql(OutboxTable table) {
        return PreparedSql.render(DSL.select(SEQ)
                .from(table.table())
                .where(statusIs(EventStatus.PENDING))
                .and(SEQ.ge(bind(SQLDataType.BIGINT)))
                .orderBy(SEQ)
                .offset(bind(SQLDataType.INTEGER))
                .limit(DSL.inline(1)));
    }

    private static String sql(OutboxTable table, boolean deadLetterHoldsKey) {
        Table<?> t = table.table();
        Table<?> c = t.as("c");
        Field<String> cKey = column(c, EVENT_KEY);
        Field<Long> cSeq = column(c, SEQ);
        Field<Object> snapshotXmin = DSL.function(
                "pg_snapshot_xmin", SQLDataType.OTHER, DSL.function("pg_current_snapshot", SQLDataType.OTHER));

        // held: key -> the key's first sequence that an event in flight or not yet due holds back
        Table<?> blocker = DSL.select(EVENT_KEY, SEQ)
                .from(t)
                .where(statusIs(EventStatus.IN_FLIGHT))
                .and(EVENT_KEY.isNotNull())
                .unionAll(DSL.select(EVENT_KEY, SEQ)
                        .from(t)
                        .where(statusIs(EventStatus.PENDING))
                        .and(NEXT_ATTEMPT_AT.gt(bind(SQLDataType.INSTANT)))
                        .and(SEQ.between(bind(SQLDataType.BIGINT), bind(SQLDataType.BIGINT)))
                        .and(EVENT_KEY.isNotNull()))
                .asTable("blocker");
        Table<?> held = DSL.select(EVENT_KEY, DSL.min(SEQ).as(SEQ))
                .from(blocker)
                .groupBy(EVENT_KEY)
                .asTable("held");
        Field<JSONB> heldByKey = DSL.field(DSL.select(DSL.coalesce(
                        DSL.jsonbObjectAgg(column(held, EVENT_KEY), column(held, SEQ)),
                        DSL.inline(JSONB.valueOf("{}"))))
                .from(held));
        Field<Long> firstHeld = DSL.jsonbGetAttributeAsText(heldByKey, cKey).cast(SQLDataType.BIGINT);

        Condition heldByDeadLetter = DSL.noCondition();
        if (deadLetterHoldsKey) {
            Table<?> f = t.as("f");
            heldByDeadLetter = DSL.notExists(DSL.selectOne()
                    .from(f)
                    .where(column(f, EVENT_KEY).eq(cKey))
                    .and(column(f, STATUS).in(statusLiteral(EventStatus.IN_FLIGHT), statusLiteral(EventStatus.FAILED)))
                    .and(column(f, SEQ).lt(cSeq)));
        }
        Table<?> b = t.as("b");
        Condition earlierNotYetCommitted = DSL.notExists(DSL.selectOne()
                .from(b)
                .where(column(b, EVENT_KEY).eq(cKey))
                .and(column(b, STATUS).eq(statusLiteral(EventStatus.PENDING)))
                .and(column(b, SEQ).lt(cSeq))
                .and(column(b, XACT_ID).ge(snapshotXmin)));

        Table<?> a = t.as("a");
        Condition nothingPendingBeforeTheWindow = DSL.notExists(DSL.selectOne()
                .from(a)
                .where(column(a, EVENT_KEY).eq(cKey))
                .and(column(a, STATUS).eq(statusLiteral(EventStatus.PENDING)))
                .and(column(a, SEQ).lt(bind(SQLDataType.BIGINT))));

        var candidates = DSL.select(column(c, ID))
                .from(c)
                .where(column(c, STATUS).eq(statusLiteral(EventStatus.PENDING)))
                .and(cSeq.between(bind(SQLDataType.BIGINT), bind(SQLDataType.BIGINT)))
                .and(column(c, NEXT_ATTEMPT_AT).le(bind(SQLDataType.INSTANT)))
                .and(cKey.isNull()
                        .or(column(c, XACT_ID)
                                .lt(snapshotXmin)
                                .and(cSeq.lt(DSL.coalesce(firstHeld, DSL.inline(Long.MAX_VALUE))))
                                .and(heldByDeadLetter)
                                .and(nothingPendingBeforeTheWindow)
                                .and(earlierNotYetCommitted)))
                .orderBy(cSeq)
                .limit(bind(SQLDataType.INTEGER))
                .forUpdate()
                .skipLocked();
        return PreparedSql.render(DSL.update(t)
                .set(STATUS, statusLiteral(EventStatus.IN_FLIGHT))
                .set(LEASE_ID, bind(SQLDataType.UUID))
                .set(LEASED_AT, bind(SQLDataType.INSTANT))
                .where(ID.in(candidates))
                .returning(OutboxTable.ALL));
    }
}
