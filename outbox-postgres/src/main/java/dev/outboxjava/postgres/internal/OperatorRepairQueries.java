package dev.outboxjava.postgres.internal;

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

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.ActiveLease;
import dev.outboxjava.core.port.AuditEntry;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.DestinationCounts;
import dev.outboxjava.core.port.EventEdit;
import dev.outboxjava.core.port.EventPage;
import dev.outboxjava.core.port.HeldKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.stream.Stream;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Name;
import org.jooq.Record;
import org.jooq.Record2;
import org.jooq.SQLDialect;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.conf.Settings;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The operator's finding, repairing and auditing ({@link dev.outboxjava.core.port.OperatorStore}) in
 * either layout, built with jOOQ and run on the connection it is given. In the in-place layout the
 * event and its state are one row ({@code e}); in the append-only layout the state row ({@code st}) is
 * joined to the log row ({@code e}). Each repair and its audit row are one transaction.
 *
 * <p>Dead letters are paged by position ({@code seq > ?}, in the order of the dead letters' partial
 * index on {@code seq}), never by offset, so a page deep in a million dead letters costs what the first
 * one does.
 */
public final class OperatorRepairQueries {

    private static final Settings SETTINGS = new Settings().withExecuteLogging(false);

    private static final Field<Long> AUDIT_ID = DSL.field(DSL.name("id"), SQLDataType.BIGINT);
    private static final Field<Instant> AUDIT_AT = DSL.field(DSL.name("at"), SQLDataType.INSTANT);
    private static final Field<String> AUDIT_ACTOR = DSL.field(DSL.name("actor"), SQLDataType.CLOB);
    private static final Field<String> AUDIT_ACTION = DSL.field(DSL.name("action"), SQLDataType.CLOB);
    private static final Field<String> AUDIT_SELECTION = DSL.field(DSL.name("selection"), SQLDataType.CLOB);
    private static final Field<Long> AUDIT_AFFECTED = DSL.field(DSL.name("affected"), SQLDataType.BIGINT);
    private static final Field<UUID> AUDIT_EVENT_ID = DSL.field(DSL.name("event_id"), SQLDataType.UUID);
    private static final Field<byte[]> AUDIT_PAYLOAD = DSL.field(DSL.name("original_payload"), SQLDataType.BLOB);
    private static final Field<JSONB> AUDIT_HEADERS = DSL.field(DSL.name("original_headers"), SQLDataType.JSONB);

    private final boolean log;
    private final Ordering ordering;
    /** The table with the event columns: the outbox table, or the append-only layout's log. */
    private final Table<Record> eventTable;
    /** The table with the state columns: the outbox table itself, or the append-only layout's state table. */
    private final Table<Record> stateTable;

    private final Table<Record> e;
    /** The alias of the state columns: {@code st}, or {@code e} in the in-place layout. */
    private final Table<Record> st;
    /** The FROM clause giving {@code e} (event columns) and {@code st} (state columns). */
    private final Table<?> from;
    /** Every column in {@link OutboxTable#ALL}'s order and names, from {@code e} and {@code st}. */
    private final List<Field<?>> columns;

    private final Table<Record> auditTable;
    /** The events' failed attempts, deleted with them. */
    private final AttemptHistory attempts;

    private final Table<Record> pendingView;
    /** Where in-flight events are ({@code id}, {@code lease_id}, {@code leased_at}), as {@code f}. */
    private final Table<?> inFlight;

    public OperatorRepairQueries(Identifiers.TableName table, boolean appendLog, Ordering ordering) {
        this.log = appendLog;
        this.ordering = ordering;
        this.eventTable = named(table);
        this.stateTable = appendLog ? named(LogLayoutDdl.stateTable(table)) : eventTable;
        this.e = eventTable.as("e");
        this.st = appendLog ? stateTable.as("st") : e;
        this.from = appendLog ? st.join(e).on(e(ID).eq(st(ID))) : e;
        this.columns = List.of(
                e(ID),
                e(SEQ),
                e(TYPE),
                e(SOURCE),
                e(EVENT_KEY),
                e(DESTINATION),
                e(ROUTING_KEY),
                e(CONTENT_TYPE),
                e(PAYLOAD),
                e(HEADERS),
                st(STATUS),
                st(ATTEMPTS),
                e(MAX_ATTEMPTS),
                st(LAST_ERROR),
                st(NEXT_ATTEMPT_AT),
                e(CREATED_AT),
                st(LEASED_AT),
                st(LEASE_ID),
                appendLog ? DSL.inline(null, SENT_AT.getDataType()).as(SENT_AT.getUnqualifiedName()) : e(SENT_AT),
                e(SUBJECT),
                e(DATA_SCHEMA));
        this.auditTable = named(new Identifiers.TableName(table.schema(), table.table() + MigrationFiles.AUDIT_SUFFIX));
        this.attempts = new AttemptHistory(table, appendLog);
        this.pendingView = named(LogLayoutDdl.pendingView(table));
        this.inFlight = appendLog
                ? named(LogLayoutDdl.inFlightView(table)).as("f")
                : DSL.select(ID, LEASE_ID, LEASED_AT)
                        .from(eventTable)
                        .where(statusIs(EventStatus.IN_FLIGHT))
                        .asTable("f");
    }

    private static Table<Record> named(Identifiers.TableName name) {
        Name qualified =
                name.schema().map(schema -> DSL.name(schema, name.table())).orElse(DSL.name(name.table()));
        return DSL.table(qualified);
    }

    /** An event column of {@code e}. */
    private <T> Field<T> e(Field<T> field) {
        return column(e, field);
    }

    /** A state column of {@code st}. */
    private <T> Field<T> st(Field<T> field) {
        return column(st, field);
    }

    /** A filter as conditions over {@code e}/{@code st}. */
    private Condition where(DeadLetterFilter filter) {
        Condition where = st(STATUS).eq(statusLiteral(EventStatus.FAILED));
        if (!filter.ids().isEmpty()) {
            where = where.and(e(ID).eq(DSL.any(UuidArrays.of(filter.ids()))));
        }
        // the append-only layout's state rows carry type, destination and creation time, with the filters' indexes
        if (filter.destination().isPresent()) {
            where = where.and(st(DESTINATION).eq(filter.destination().get()));
        }
        if (filter.type().isPresent()) {
            where = where.and(st(TYPE).eq(filter.type().get()));
        }
        if (filter.key().isPresent()) {
            // the state table of the append-only layout carries the key, with an index
            where = where.and(st(EVENT_KEY).eq(filter.key().get()));
        }
        if (filter.errorContains().isPresent()) {
            where = where.and(DSL.function(
                            "strpos",
                            SQLDataType.INTEGER,
                            DSL.lower(st(LAST_ERROR)),
                            DSL.lower(DSL.val(filter.errorContains().get())))
                    .gt(0));
        }
        if (filter.createdFrom().isPresent()) {
            Instant from = filter.createdFrom().get();
            where = where.and(st(CREATED_AT).ge(from));
            // redundant (it selects nothing more, nothing less) but it lets the page's scan in sequence order
            // start at the first dead letter of the range, found through the creation-time index
            // (seq + 0: the minimum is taken over the range's creation-time index entries, not by walking the
            // sequence index from its start until the first row of the range)
            Table<Record> r = stateTable.as("r");
            where = where.and(st(SEQ).ge(
                            DSL.field(DSL.select(DSL.min(column(r, SEQ).plus(DSL.inline(0))))
                                    .from(r)
                                    .where(column(r, STATUS).eq(statusLiteral(EventStatus.FAILED)))
                                    .and(column(r, CREATED_AT).ge(from)))));
        }
        if (filter.createdBefore().isPresent()) {
            where = where.and(st(CREATED_AT).lt(filter.createdBefore().get()));
        }
        return where;
    }

    public EventPage find(Connection connection, DeadLetterFilter filter, OptionalLong after, int limit)
            throws SQLException {
        Condition page = after.isPresent() ? st(SEQ).gt(after.getAsLong()) : DSL.noCondition();
        return EventPage.of(
                run(() -> dsl(connection)
                        .select(columns)
                        .from(from)
                        .where(where(filter))
                        .and(page)
                        .orderBy(st(SEQ))
                        .limit(limit + 1)
                        .fetch(EventRows::toEvent)),
                limit);
    }

    /** Counts up to {@code upTo} matches (a bounded count stays cheap however many rows match). */
    public long count(Connection connection, DeadLetterFilter filter, long upTo) throws SQLException {
        Select<?> count = upTo < Long.MAX_VALUE
                ? DSL.selectCount()
                        .from(DSL.selectOne()
                                .from(from)
                                .where(where(filter))
                                .limit(upTo)
                                .asTable("c"))
                : DSL.selectCount().from(from).where(where(filter));
        return run(() -> dsl(connection).fetchOne(count).get(0, Long.class));
    }

    public long requeue(Connection connection, DeadLetterFilter filter, String actor, Instant now) throws SQLException {
        return inTransaction(connection, dsl -> {
            var requeue = dsl.update(st)
                    .set(STATUS, statusLiteral(EventStatus.PENDING))
                    .set(ATTEMPTS, DSL.inline(0))
                    .set(NEXT_ATTEMPT_AT, now)
                    .set(LEASE_ID, DSL.inline(null, LEASE_ID.getDataType()))
                    .set(LEASED_AT, DSL.inline(null, LEASED_AT.getDataType()));
            long changed = log
                    ? requeue.from(e).where(e(ID).eq(st(ID))).and(where(filter)).execute()
                    : requeue.where(where(filter)).execute();
            audit(dsl, now, actor, AuditEntry.REQUEUE, filter.describe(), changed, null, null, null);
            return changed;
        });
    }

    public long purge(Connection connection, DeadLetterFilter filter, String actor, Instant now) throws SQLException {
        return inTransaction(connection, dsl -> {
            long deleted;
            if (log) {
                // one statement: the state rows, and the log rows of the same events
                CommonTableExpression<?> states = DSL.name("x")
                        .as(dsl.deleteFrom(st)
                                .using(e)
                                .where(e(ID).eq(st(ID)))
                                .and(where(filter))
                                .returning(st(ID)));
                CommonTableExpression<?> events = DSL.name("y")
                        .as(dsl.deleteFrom(eventTable)
                                .where(ID.in(DSL.select(column(states, ID)).from(states)))
                                .returning(ID));
                deleted = dsl.with(states)
                        .with(events)
                        .with(attempts.deleteOf(states, ID))
                        .selectCount()
                        .from(states)
                        .fetchOne(0, Long.class);
            } else {
                CommonTableExpression<?> events =
                        DSL.name("x").as(dsl.deleteFrom(e).where(where(filter)).returning(e(ID)));
                deleted = dsl.with(events)
                        .with(attempts.deleteOf(events, ID))
                        .selectCount()
                        .from(events)
                        .fetchOne(0, Long.class);
            }
            audit(dsl, now, actor, AuditEntry.PURGE, filter.describe(), deleted, null, null, null);
            return deleted;
        });
    }

    /** Runs a repair made elsewhere and records its audit entry, in one transaction. */
    public long audited(
            Connection connection, Instant now, String actor, String action, String selection, Repair repair)
            throws SQLException {
        return inTransaction(connection, dsl -> {
            long affected = repair.run();
            audit(dsl, now, actor, action, selection, affected, null, null, null);
            return affected;
        });
    }

    /** A repair made elsewhere (e.g. the cleaner's purge of sent events), counting what it changed. */
    @FunctionalInterface
    public interface Repair {
        long run() throws SQLException;
    }

    public Optional<OutboxEvent> editAndRequeue(
            Connection connection, UUID eventId, EventEdit edit, String actor, Instant now) throws SQLException {
        return inTransaction(connection, dsl -> {
            Field<String> headersText = e(HEADERS).cast(SQLDataType.CLOB);
            Record original = dsl.select(e(PAYLOAD), headersText)
                    .from(from)
                    .where(e(ID).eq(eventId))
                    .and(st(STATUS).eq(statusLiteral(EventStatus.FAILED)))
                    .forUpdate()
                    .fetchOne();
            if (original == null) {
                return Optional.empty();
            }
            dsl.update(eventTable)
                    .set(PAYLOAD, edit.payload())
                    .set(HEADERS, JSONB.valueOf(HeadersJson.write(edit.headers())))
                    .where(ID.eq(eventId))
                    .execute();
            dsl.update(stateTable)
                    .set(STATUS, statusLiteral(EventStatus.PENDING))
                    .set(ATTEMPTS, DSL.inline(0))
                    .set(NEXT_ATTEMPT_AT, now)
                    .set(LEASE_ID, DSL.inline(null, LEASE_ID.getDataType()))
                    .set(LEASED_AT, DSL.inline(null, LEASED_AT.getDataType()))
                    .where(ID.eq(eventId))
                    .and(statusIs(EventStatus.FAILED))
                    .execute();
            audit(
                    dsl,
                    now,
                    actor,
                    AuditEntry.EDIT_REQUEUE,
                    "id=" + eventId,
                    1,
                    eventId,
                    original.get(0, byte[].class),
                    original.get(headersText));
            return dsl.select(columns).from(from).where(e(ID).eq(eventId)).fetchOptional(EventRows::toEvent);
        });
    }

    /** Keys held behind their earliest failed event (a dead letter that holds its key, or a retrying event). */
    public List<HeldKey> heldKeys(Connection connection, int limit) throws SQLException {
        if (!ordering.isPerKey()) {
            return List.of();
        }
        Condition holds = st(STATUS)
                .eq(statusLiteral(EventStatus.PENDING))
                .and(st(ATTEMPTS).gt(0));
        if (ordering.deadLetterHoldsKey()) {
            holds = holds.or(st(STATUS).eq(statusLiteral(EventStatus.FAILED)));
        }
        Table<?> h = DSL.select(columns)
                .distinctOn(e(EVENT_KEY))
                .from(from)
                .where(e(EVENT_KEY).isNotNull())
                .and(holds)
                .orderBy(e(EVENT_KEY), st(SEQ))
                .asTable("h");
        // the events waiting behind: pending ones of the key, later in sequence; in the append-only layout
        // those not yet leased are only in the log, so the pending view counts them
        Table<Record> w = (log ? pendingView : eventTable).as("w");
        Condition waitingBehind =
                column(w, EVENT_KEY).eq(column(h, EVENT_KEY)).and(column(w, SEQ).gt(column(h, SEQ)));
        if (!log) {
            waitingBehind = waitingBehind.and(column(w, STATUS).eq(statusLiteral(EventStatus.PENDING)));
        }
        Field<Long> waiting = DSL.field(DSL.select(DSL.count().coerce(SQLDataType.BIGINT))
                        .from(w)
                        .where(waitingBehind))
                .as("waiting");
        Table<?> k = DSL.select(h.asterisk(), waiting).from(h).asTable("k");
        Field<Long> kWaiting = DSL.field(DSL.name("k", "waiting"), SQLDataType.BIGINT);
        List<Field<?>> kColumns = Stream.concat(
                        Stream.of(OutboxTable.ALL).map(field -> column(k, field)), Stream.of(kWaiting))
                .toList();
        return run(() -> dsl(connection)
                .select(kColumns)
                .from(k)
                .where(kWaiting.gt(0L))
                .orderBy(column(k, SEQ))
                .limit(limit)
                .fetch(row -> {
                    OutboxEvent holder = EventRows.toEvent(row);
                    return new HeldKey(holder.key().orElseThrow(), holder, row.get(kWaiting));
                }));
    }

    public List<DestinationCounts> countByDestination(Connection connection, int limit) throws SQLException {
        Select<Record2<String, String>> rows = log
                ? DSL.select(DESTINATION, STATUS)
                        .from(pendingView)
                        .unionAll(DSL.select(e(DESTINATION), st(STATUS))
                                .from(from)
                                .where(st(STATUS).eq(statusLiteral(EventStatus.FAILED))))
                        .unionAll(DSL.select(e(DESTINATION), statusLiteral(EventStatus.IN_FLIGHT))
                                .from(inFlight)
                                .join(e)
                                .on(e(ID).eq(column(inFlight, ID))))
                : DSL.select(DESTINATION, STATUS)
                        .from(eventTable)
                        .where(STATUS.in(
                                statusLiteral(EventStatus.PENDING),
                                statusLiteral(EventStatus.IN_FLIGHT),
                                statusLiteral(EventStatus.FAILED)));
        Table<?> r = rows.asTable("r");
        Field<String> destination = column(r, DESTINATION);
        Field<String> status = column(r, STATUS);
        return run(() -> dsl(connection)
                .select(
                        destination,
                        countWhere(status.eq(statusLiteral(EventStatus.PENDING))),
                        countWhere(status.eq(statusLiteral(EventStatus.IN_FLIGHT))),
                        countWhere(status.eq(statusLiteral(EventStatus.FAILED))))
                .from(r)
                .groupBy(destination)
                .orderBy(DSL.count().desc(), destination)
                .limit(limit)
                .fetch(row -> new DestinationCounts(row.value1(), row.value2(), row.value3(), row.value4())));
    }

    private static Field<Long> countWhere(Condition condition) {
        return DSL.count().filterWhere(condition).coerce(SQLDataType.BIGINT);
    }

    public List<ActiveLease> activeLeases(Connection connection, int limit) throws SQLException {
        Field<UUID> leaseId = column(inFlight, LEASE_ID);
        Field<Instant> since = DSL.min(column(inFlight, LEASED_AT));
        return run(() -> dsl(connection)
                .select(leaseId, DSL.count().coerce(SQLDataType.BIGINT), since)
                .from(inFlight)
                .groupBy(leaseId)
                .orderBy(since)
                .limit(limit)
                .fetch(row -> new ActiveLease(row.value1(), row.value2(), row.value3())));
    }

    public List<AuditEntry> auditTrail(Connection connection, OptionalLong before, int limit) throws SQLException {
        Field<String> headers = AUDIT_HEADERS.cast(SQLDataType.CLOB);
        return run(() -> dsl(connection)
                .select(
                        AUDIT_ID,
                        AUDIT_AT,
                        AUDIT_ACTOR,
                        AUDIT_ACTION,
                        AUDIT_SELECTION,
                        AUDIT_AFFECTED,
                        AUDIT_EVENT_ID,
                        AUDIT_PAYLOAD,
                        headers)
                .from(auditTable)
                .where(before.isPresent() ? AUDIT_ID.lt(before.getAsLong()) : DSL.noCondition())
                .orderBy(AUDIT_ID.desc())
                .limit(limit)
                .fetch(row -> new AuditEntry(
                        row.value1(),
                        row.value2(),
                        row.value3(),
                        row.value4(),
                        row.value5(),
                        row.value6(),
                        Optional.ofNullable(row.value7()),
                        Optional.ofNullable(row.value8()),
                        row.value9() == null ? Map.of() : HeadersJson.read(row.value9()))));
    }

    private void audit(
            DSLContext dsl,
            Instant at,
            String actor,
            String action,
            String selection,
            long affected,
            UUID eventId,
            byte[] originalPayload,
            String originalHeaders) {
        dsl.insertInto(auditTable)
                .columns(
                        AUDIT_AT,
                        AUDIT_ACTOR,
                        AUDIT_ACTION,
                        AUDIT_SELECTION,
                        AUDIT_AFFECTED,
                        AUDIT_EVENT_ID,
                        AUDIT_PAYLOAD,
                        AUDIT_HEADERS)
                .values(
                        at,
                        actor,
                        action,
                        selection,
                        affected,
                        eventId,
                        originalPayload,
                        originalHeaders == null ? null : JSONB.valueOf(originalHeaders))
                .execute();
    }

    private static DSLContext dsl(Connection connection) {
        return DSL.using(connection, SQLDialect.POSTGRES, SETTINGS);
    }

    /**
     * Runs a jOOQ call, reporting the driver's failure as the {@link SQLException} it was, so the store
     * words it as it does every other failure.
     */
    private static <T> T run(JooqCall<T> call) throws SQLException {
        try {
            return call.run();
        } catch (DataAccessException e) {
            SQLException cause = e.getCause(SQLException.class);
            if (cause != null) {
                throw cause;
            }
            throw e;
        }
    }

    /** Work done in a repair's transaction. */
    @FunctionalInterface
    private interface JooqCall<T> {
        T run() throws SQLException;
    }

    @FunctionalInterface
    private interface TransactionBody<T> {
        T run(DSLContext dsl) throws SQLException;
    }

    private static <T> T inTransaction(Connection connection, TransactionBody<T> body) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            T result = run(() -> body.run(dsl(connection)));
            connection.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }
}
