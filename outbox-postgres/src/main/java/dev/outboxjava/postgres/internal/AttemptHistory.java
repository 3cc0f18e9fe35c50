package dev.outboxjava.postgres.internal;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.val;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.Attempt;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Row3;
import org.jooq.SQLDialect;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The failed attempts of an outbox table's events, in the table {@code <table>_attempts}: one row per
 * failure mark (a retry or the dead letter), inserted in the mark's transaction, read by the operator,
 * deleted with the event. A published attempt writes nothing here, so the relay's success path is
 * untouched.
 *
 * <p>The attempt's number is the event's attempt counter after the mark, read from where the layout
 * keeps it; each layout names that table and says which events a cleanup or a purge is about to delete.
 */
public abstract class AttemptHistory {

    private static final Field<Long> ID = field(name("id"), SQLDataType.BIGINT);
    private static final Field<UUID> EVENT_ID = field(name("event_id"), SQLDataType.UUID);
    private static final Field<Integer> ATTEMPT = field(name("attempt"), SQLDataType.INTEGER);
    private static final Field<Instant> AT = field(name("at"), SQLDataType.INSTANT);
    private static final Field<String> OUTCOME = field(name("outcome"), SQLDataType.CLOB);
    private static final Field<String> ERROR = field(name("error"), SQLDataType.CLOB);
    private static final Field<UUID> LEASE_ID = field(name("lease_id"), SQLDataType.UUID);
    private static final Field<String> STOPPED_BY = field(name("stopped_by"), SQLDataType.CLOB);
    /** The lease id of an attempt recorded without a lease (an operator's dead-letter-now). */
    private static final UUID NO_LEASE = new UUID(0, 0);

    private static final Settings SETTINGS = new Settings().withExecuteLogging(false);

    private final Table<Record> attempts;
    /** The table with the event rows: the outbox table, or the append-only layout's log. */
    protected final Table<Record> events;
    /** Where the attempt counter is. */
    private final Table<Record> counters;
    /** Where the next search for orphaned attempts starts (an attempt id). */
    private final java.util.concurrent.atomic.AtomicLong orphanCursor = new java.util.concurrent.atomic.AtomicLong();

    /**
     * @param counterSuffix the suffix of the table, next to the outbox table, holding the attempt counters
     *     ({@code ""}: the outbox table itself)
     */
    protected AttemptHistory(Identifiers.TableName table, String counterSuffix) {
        this.attempts = DSL.table(sibling(table, MigrationFiles.ATTEMPTS_SUFFIX));
        this.events = DSL.table(sibling(table, ""));
        this.counters = DSL.table(sibling(table, counterSuffix));
    }

    /** The table named {@code table} with {@code suffix} appended, in the same schema. */
    protected static Name sibling(Identifiers.TableName table, String suffix) {
        return table.schema()
                .map(schema -> DSL.name(schema, table.table() + suffix))
                .orElse(DSL.name(table.table() + suffix));
    }

    /** The table's name as shown in messages. */
    public String tableName() {
        return attempts.getName();
    }

    /**
     * Records the failed attempts of the events a failure mark changed, on the mark's connection (in its
     * transaction).
     *
     * @param errors each marked event's error, by id (events not in {@code marked} are ignored)
     * @param stoppedBy of dead-lettered events, which rule stopped their attempts, by id (absent: not recorded)
     * @param marked the events the mark changed (not those whose lease was lost)
     */
    public void record(
            Connection connection,
            UUID leaseId,
            Map<UUID, String> errors,
            Map<UUID, String> stoppedBy,
            Collection<UUID> marked,
            Attempt.Outcome outcome,
            Instant now) {
        List<Row3<UUID, String, String>> rows = new ArrayList<>();
        for (UUID id : marked) {
            rows.add(row(id, errors.get(id), stoppedBy.get(id)));
        }
        if (rows.isEmpty()) {
            return;
        }
        @SuppressWarnings("unchecked")
        Table<?> m = DSL.values(rows.toArray(Row3[]::new)).as("m", "m_id", "m_error", "m_stopped_by");
        Field<UUID> mId = field(name("m", "m_id"), SQLDataType.UUID);
        Field<String> mError = field(name("m", "m_error"), SQLDataType.CLOB);
        Field<String> mStoppedBy = field(name("m", "m_stopped_by"), SQLDataType.CLOB);
        Field<UUID> cId = field(name("c", "id"), SQLDataType.UUID);
        Field<Integer> cAttempts = field(name("c", "attempts"), SQLDataType.INTEGER);
        dsl(connection)
                .insertInto(attempts, EVENT_ID, ATTEMPT, AT, OUTCOME, ERROR, LEASE_ID, STOPPED_BY)
                .select(select(
                                cId,
                                cAttempts,
                                val(now, AT),
                                inline(outcome.databaseValue()),
                                mError,
                                val(leaseId, LEASE_ID),
                                mStoppedBy)
                        .from(counters.as("c"))
                        .join(m)
                        .on(cId.eq(mId)))
                .execute();
    }

    /** One event's attempts, oldest first. */
    public List<Attempt> of(DSLContext dsl, UUID eventId) {
        return dsl.select(EVENT_ID, ATTEMPT, AT, OUTCOME, ERROR, LEASE_ID, STOPPED_BY)
                .from(attempts)
                .where(EVENT_ID.eq(eventId))
                .orderBy(ID)
                .fetch(r -> new Attempt(
                        r.value1(),
                        r.value2(),
                        r.value3(),
                        Attempt.Outcome.fromDatabaseValue(r.value4()),
                        r.value5(),
                        r.value6(),
                        java.util.Optional.ofNullable(r.value7())));
    }

    /** The time of the earliest recorded attempt of the event {@code eventId} (of the outer query); null: none. */
    public Field<Instant> firstAt(Field<UUID> eventId) {
        Table<Record> a = attempts.as("fa");
        return field(select(DSL.min(OutboxTable.column(a, AT)))
                .from(a)
                .where(OutboxTable.column(a, EVENT_ID).eq(eventId)));
    }

    /** The time of the latest recorded attempt of the event {@code eventId} (of the outer query); null: none. */
    public Field<Instant> lastAt(Field<UUID> eventId) {
        Table<Record> a = attempts.as("la");
        return field(select(DSL.max(OutboxTable.column(a, AT)))
                .from(a)
                .where(OutboxTable.column(a, EVENT_ID).eq(eventId)));
    }

    /**
     * Of these events, those for which {@code current} holds (a condition over the event id, e.g. that it is
     * a dead letter now), the time of their latest dead-letter attempt.
     */
    public Map<UUID, Instant> deadLetteredAt(
            DSLContext dsl, java.util.Set<UUID> eventIds, java.util.function.Function<Field<UUID>, Condition> current) {
        Table<Record> a = attempts.as("a");
        Field<UUID> eventId = OutboxTable.column(a, EVENT_ID);
        Field<Instant> latest = DSL.max(OutboxTable.column(a, AT));
        return dsl.select(eventId, latest)
                .from(a)
                .where(eventId.eq(DSL.any(UuidArrays.of(eventIds))))
                .and(OutboxTable.column(a, OUTCOME).eq(inline(Attempt.Outcome.DEAD_LETTER.databaseValue())))
                .and(current.apply(eventId))
                .groupBy(eventId)
                .fetchMap(eventId, latest);
    }

    /**
     * A data-modifying CTE {@code r} recording the dead-letter attempt of each event that {@code changed} (a
     * CTE of the same statement) returns with its {@code id}, {@code attempts} and {@code last_error}: the
     * event's last attempt again (its number = its attempts so far), under no lease (the nil UUID), stopped
     * by {@code stoppedBy}.
     */
    public CommonTableExpression<?> deadLettersOf(CommonTableExpression<?> changed, Instant now, String stoppedBy) {
        Field<UUID> id = field(name(changed.getName(), "id"), SQLDataType.UUID);
        Field<Integer> counter = field(name(changed.getName(), "attempts"), SQLDataType.INTEGER);
        Field<String> error = field(name(changed.getName(), "last_error"), SQLDataType.CLOB);
        return name("r")
                .as(DSL.insertInto(attempts, EVENT_ID, ATTEMPT, AT, OUTCOME, ERROR, LEASE_ID, STOPPED_BY)
                        .select(select(
                                        id,
                                        counter,
                                        val(now, AT),
                                        inline(Attempt.Outcome.DEAD_LETTER.databaseValue()),
                                        DSL.coalesce(error, inline("")),
                                        inline(NO_LEASE, LEASE_ID),
                                        val(stoppedBy, STOPPED_BY))
                                .from(changed))
                        .returning(EVENT_ID));
    }

    /**
     * Deletes the attempts of the sent events a cleanup is about to delete: the first {@code limit} sent
     * before the cutoff, in the cleanup's order. One index probe per event.
     */
    public int deleteOfSentBefore(DSLContext dsl, Instant sentBefore, int limit) {
        Select<Record1<UUID>> old = sentBefore(sentBefore, limit);
        return dsl.deleteFrom(attempts).where(EVENT_ID.in(old)).execute();
    }

    /**
     * Deletes the attempts whose event is gone, recorded before {@code before}, among the next
     * {@code limit} rows of the table after where the previous call stopped (wrapping around at its end):
     * the attempts of events deleted at publication ({@code DELETE_ON_PUBLISH}) or by hand. Each call reads
     * a bounded slice, so the dead letters' attempts, which stay, are not read again and again.
     *
     * @return how many were deleted
     */
    public int deleteOrphansBefore(DSLContext dsl, Instant before, int limit) {
        Table<Record> a = attempts.as("a");
        Field<Long> aId = field(name("a", "id"), SQLDataType.BIGINT);
        Field<UUID> aEvent = field(name("a", "event_id"), SQLDataType.UUID);
        Field<Instant> aAt = field(name("a", "at"), SQLDataType.INSTANT);
        var slice = dsl.select(aId, aEvent, aAt)
                .from(a)
                .where(aId.gt(orphanCursor.get()))
                .orderBy(aId)
                .limit(limit)
                .fetch();
        if (slice.isEmpty()) {
            orphanCursor.set(0);
            return 0;
        }
        orphanCursor.set(slice.size() < limit ? 0 : slice.get(slice.size() - 1).value1());
        List<UUID> candidates = new ArrayList<>();
        for (var row : slice) {
            if (row.value3().isBefore(before)) {
                candidates.add(row.value2());
            }
        }
        if (candidates.isEmpty()) {
            return 0;
        }
        UUID[] ids = candidates.stream().distinct().toArray(UUID[]::new);
        Field<UUID> eId = field(name("e", "id"), SQLDataType.UUID);
        return dsl.deleteFrom(attempts)
                .where(EVENT_ID.eq(DSL.any(ids)))
                .and(AT.lt(before))
                .andNotExists(DSL.selectOne()
                        .from(events.as("e"))
                        .where(eId.eq(field(attempts.getQualifiedName().append("event_id"), SQLDataType.UUID))))
                .execute();
    }

    /** The first {@code limit} events sent before the cutoff, in the cleanup's order. */
    protected abstract Select<Record1<UUID>> sentBefore(Instant sentBefore, int limit);

    /** The events in {@code status} created before the cutoff, which a purge by age deletes. */
    protected abstract Select<Record1<UUID>> purged(EventStatus status, Instant createdBefore);

    /** Deletes the attempts of the events a purge by age is about to delete. */
    public int deleteOfPurged(DSLContext dsl, EventStatus status, Instant createdBefore) {
        Select<Record1<UUID>> purged = purged(status, createdBefore);
        return dsl.deleteFrom(attempts).where(EVENT_ID.in(purged)).execute();
    }

    /**
     * A data-modifying CTE {@code a} deleting the attempts of the events that {@code deleted} (a CTE of the same
     * statement) returns in its column {@code id}: a purge deletes the events and their attempts at once.
     */
    public CommonTableExpression<?> deleteOf(CommonTableExpression<?> deleted, Field<UUID> id) {
        return name("a")
                .as(DSL.deleteFrom(attempts)
                        .where(EVENT_ID.in(
                                select(OutboxTable.column(deleted, id)).from(deleted)))
                        .returning(EVENT_ID));
    }

    /**
     * Whether {@code error} says the attempts table does not exist, or lacks a column a later migration
     * adds (its migrations have not run).
     */
    public static boolean isMissingTable(Throwable error) {
        String state = Failures.sqlState(error);
        return "42P01".equals(state) || "42703".equals(state);
    }

    private static DSLContext dsl(Connection connection) {
        return DSL.using(connection, SQLDialect.POSTGRES, SETTINGS);
    }
}
