package dev.outboxjava.postgres.internal.inplace;

import static dev.outboxjava.postgres.internal.OutboxTable.ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.CREATED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.NEXT_ATTEMPT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.statusIs;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.internal.EventRows;
import dev.outboxjava.postgres.internal.OutboxTable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/** What an operator (and the worker's gauges) asks the table. */
public final class InPlaceOperatorReads {

    private final OutboxTable table;

    public InPlaceOperatorReads(OutboxTable table) {
        this.table = table;
    }

    /** One statement, one count per state; each count reads only its state's partial index. */
    public Map<EventStatus, Long> countByStatus(DSLContext dsl) {
        Field<Long> countAll = countAll();
        List<Field<Long>> counts = new ArrayList<>();
        for (EventStatus status : EventStatus.values()) {
            counts.add(DSL.field(DSL.select(countAll).from(table.table()).where(statusIs(status))));
        }
        Record row = dsl.select(counts).fetchOne();
        Map<EventStatus, Long> result = new EnumMap<>(EventStatus.class);
        EventStatus[] statuses = EventStatus.values();
        for (int i = 0; i < statuses.length; i++) {
            Long count = row.get(counts.get(i));
            result.put(statuses[i], count == null ? 0L : count);
        }
        return result;
    }

    public Optional<Instant> oldestPendingCreatedAt(DSLContext dsl) {
        return Optional.ofNullable(dsl.select(DSL.min(CREATED_AT))
                .from(table.table())
                .where(statusIs(EventStatus.PENDING))
                .fetchOne(0, Instant.class));
    }

    public Optional<OutboxEvent> find(DSLContext dsl, UUID eventId) {
        return dsl.select(OutboxTable.ALL)
                .from(table.table())
                .where(ID.eq(eventId))
                .fetchOptional()
                .map(EventRows::toEvent);
    }

    /** Pending events with at least one failed attempt, soonest next attempt first. */
    public List<OutboxEvent> retrying(DSLContext dsl, int offset, int limit) {
        return dsl.select(OutboxTable.ALL)
                .from(table.table())
                .where(statusIs(EventStatus.PENDING))
                .and(ATTEMPTS.gt(0))
                .orderBy(NEXT_ATTEMPT_AT, SEQ)
                .offset(offset)
                .limit(limit)
                .fetch(EventRows::toEvent);
    }

    public long countRetrying(DSLContext dsl) {
        Long count = dsl.select(countAll())
                .from(table.table())
                .where(statusIs(EventStatus.PENDING))
                .and(ATTEMPTS.gt(0))
                .fetchOne(0, Long.class);
        return count == null ? 0 : count;
    }

    /** The rows a purge of {@code status} before {@code createdBefore} would delete. */
    public long countCreatedBefore(DSLContext dsl, EventStatus status, Instant createdBefore) {
        Long count = dsl.select(countAll())
                .from(table.table())
                .where(statusIs(status))
                .and(CREATED_AT.lt(createdBefore))
                .fetchOne(0, Long.class);
        return count == null ? 0 : count;
    }

    /** {@code count(*)}, read as the {@code bigint} it is (jOOQ's count() would read it as an int). */
    private static Field<Long> countAll() {
        return DSL.count().coerce(SQLDataType.BIGINT);
    }

    /** Whether the table answers a query (it exists and the database is reachable). */
    public void probe(DSLContext dsl) {
        dsl.selectOne().from(table.table()).where(DSL.falseCondition()).fetch();
    }
}
