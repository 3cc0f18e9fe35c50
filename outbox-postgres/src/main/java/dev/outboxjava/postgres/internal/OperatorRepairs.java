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
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.stream.Stream;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Record;
import org.jooq.Record2;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The operator's finding, repairing and auditing ({@link dev.outboxjava.core.port.OperatorStore}), built
 * with jOOQ and run on the connection it is given. Each layout says where an event's columns ({@code e})
 * and its state columns ({@code st}) are ({@link Shape}) and writes the repairs that touch both; each
 * repair and its audit row are one transaction.
 *
 * <p>Dead letters are paged by position ({@code seq > ?}, in the order of the dead letters' partial
 * index on {@code seq}), never by offset, so a page deep in a million dead letters costs what the first
 * one does.
 */
public abstract class OperatorRepairs {

    /**
     * Where a layout keeps an event and its state.
     *
     * @param eventTable the table with the event columns
     * @param stateTable the table with the state columns (the event table itself when they are one row)
     * @param e the alias of the event columns
     * @param st the alias of the state columns ({@code e} when they are one row)
     * @param from the FROM clause giving {@code e} and {@code st}
     * @param sentAt the sent time in the select list (a column, or a NULL named {@code sent_at})
     * @param inFlight where in-flight events are ({@code id}, {@code lease_id}, {@code leased_at}), as {@code f}
     */
    public record Shape(
            Table<Record> eventTable,
            Table<Record> stateTable,
            Table<Record> e,
            Table<Record> st,
            Table<?> from,
            Field<?> sentAt,
            Table<?> inFlight) {}

    protected final Ordering ordering;
    protected final Table<Record> eventTable;
    protected final Table<Record> stateTable;
    protected final Table<Record> e;
    protected final Table<Record> st;
    protected final Table<?> from;
    /** Every column in {@link OutboxTable#ALL}'s order and names, from {@code e} and {@code st}. */
    protected final List<Field<?>> columns;

    protected final Table<?> inFlight;
    /** The events' failed attempts, deleted with them. */
    protected final AttemptHistory attempts;

    protected final OperatorAudit audit;
    private final FailureQueries failures;
    private final RetryingRepairs retrying;

    protected OperatorRepairs(Shape shape, Ordering ordering, AttemptHistory attempts, OperatorAudit audit) {
        this.ordering = ordering;
        this.eventTable = shape.eventTable();
        this.stateTable = shape.stateTable();
        this.e = shape.e();
        this.st = shape.st();
        this.from = shape.from();
        this.inFlight = shape.inFlight();
        this.attempts = attempts;
        this.audit = audit;
        this.failures = new FailureQueries(stateTable, st, attempts);
        this.retrying = new RetryingRepairs(st, attempts, audit);
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
                shape.sentAt(),
                e(SUBJECT),
                e(DATA_SCHEMA));
    }

    /** An event column of {@code e}. */
    protected final <T> Field<T> e(Field<T> field) {
        return column(e, field);
    }

    /** A state column of {@code st}. */
    protected final <T> Field<T> st(Field<T> field) {
        return column(st, field);
    }

    /** A filter as conditions over {@code e}/{@code st}. */
    protected final Condition where(DeadLetterFilter filter) {
        Condition where = st(STATUS).eq(statusLiteral(EventStatus.FAILED));
        if (!filter.ids().isEmpty()) {
            where = where.and(e(ID).eq(DSL.any(UuidArrays.of(filter.ids()))));
        }
        // the append-only layout's state rows carry type, destination and creation time, with the filters' indexes
        if (filter.destination().isPresent()) {
            where = where.and(FailureQueries.matching(
                    st(DESTINATION), filter.destination().get(), filter.match()));
        }
        if (filter.type().isPresent()) {
            where = where.and(FailureQueries.matching(st(TYPE), filter.type().get(), filter.match()));
        }
        if (filter.key().isPresent()) {
            // the state table of the append-only layout carries the key, with an index
            where = where.and(
                    FailureQueries.matching(st(EVENT_KEY), filter.key().get(), filter.match()));
        }
        if (filter.cause().isPresent()) {
            where = where.and(
                    FailureQueries.cause(st(LAST_ERROR)).eq(filter.cause().get()));
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

    /** Dead letters matching the filter back to pending, due at {@code now}, with their audit entry. */
    public abstract long requeue(Connection connection, DeadLetterFilter filter, String actor, Instant now)
            throws SQLException;

    /** Deletes the dead letters matching the filter and their attempts, with their audit entry. */
    public abstract long purge(Connection connection, DeadLetterFilter filter, String actor, Instant now)
            throws SQLException;

    /** Runs a repair made elsewhere and records its audit entry, in one transaction. */
    public long audited(
            Connection connection,
            Instant now,
            String actor,
            String action,
            String selection,
            OperatorAudit.Repair repair)
            throws SQLException {
        return audit.audited(connection, now, actor, action, selection, repair);
    }

    public List<AuditEntry> auditTrail(Connection connection, OptionalLong before, int limit) throws SQLException {
        return audit.auditTrail(connection, before, limit);
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
            audit.record(
                    dsl,
                    now,
                    actor,
                    AuditEntry.EDIT_REQUEUE,
                    "id=" + eventId,
                    1,
                    eventId,
                    original.get(0, byte[].class),
                    original.get(headersText),
                    edit.payload(),
                    HeadersJson.write(edit.headers()),
                    List.of(eventId));
            return dsl.select(columns).from(from).where(e(ID).eq(eventId)).fetchOptional(EventRows::toEvent);
        });
    }

    /** The answers to "why": failure groups, a filter's values, dead-lettered times. */
    public FailureQueries failures() {
        return failures;
    }

    /** Retry now and dead-letter now. */
    public RetryingRepairs retrying() {
        return retrying;
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
        Table<?> w = waitingTable().as("w");
        Condition waitingBehind = column(w, EVENT_KEY)
                .eq(column(h, EVENT_KEY))
                .and(column(w, SEQ).gt(column(h, SEQ)))
                .and(waiting(w));
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

    /**
     * The events that may wait behind a held key's first event: their pending ones are counted
     * ({@link #waiting}).
     */
    protected abstract Table<Record> waitingTable();

    /** Of {@link #waitingTable()} (as {@code w}), the rows that are pending events. */
    protected abstract Condition waiting(Table<?> w);

    /** Each pending, in-flight and dead-lettered event's destination and status. */
    protected abstract Select<Record2<String, String>> destinationRows();

    public List<DestinationCounts> countByDestination(Connection connection, int limit) throws SQLException {
        Select<Record2<String, String>> rows = destinationRows();
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

    protected static DSLContext dsl(Connection connection) {
        return OperatorAudit.dsl(connection);
    }

    protected static <T> T run(OperatorAudit.JooqCall<T> call) throws SQLException {
        return OperatorAudit.run(call);
    }

    protected static <T> T inTransaction(Connection connection, OperatorAudit.TransactionBody<T> body)
            throws SQLException {
        return OperatorAudit.inTransaction(connection, body);
    }
}
