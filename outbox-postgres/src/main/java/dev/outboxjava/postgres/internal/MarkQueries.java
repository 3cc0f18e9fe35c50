package dev.outboxjava.postgres.internal;

import static dev.outboxjava.postgres.internal.OutboxTable.ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LAST_ERROR;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASE_ID;
import static dev.outboxjava.postgres.internal.OutboxTable.NEXT_ATTEMPT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SENT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.statusIs;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.RetryMark;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The fenced marks: one statement per outcome kind per batch, changing only rows that are still
 * in flight under the presented lease. Whatever the statement did not return is lease-lost.
 */
public final class MarkQueries {

    private static final Field<UUID> M_ID = DSL.field(DSL.name("m", "m_id"), SQLDataType.UUID);
    private static final Field<String> M_ERROR = DSL.field(DSL.name("m", "m_error"), SQLDataType.CLOB);
    private static final Field<Instant> M_NEXT = DSL.field(DSL.name("m", "m_next_attempt_at"), SQLDataType.INSTANT);

    private final OutboxTable table;
    private final CompletionMode completionMode;

    public MarkQueries(OutboxTable table, CompletionMode completionMode) {
        this.table = table;
        this.completionMode = completionMode;
    }

    public MarkResult published(DSLContext dsl, UUID leaseId, Collection<UUID> eventIds, Instant now) {
        Set<UUID> ids = new HashSet<>(eventIds);
        if (ids.isEmpty()) {
            return MarkResult.empty();
        }
        List<UUID> marked = completionMode == CompletionMode.DELETE_ON_PUBLISH
                ? dsl.deleteFrom(table.table()).where(heldBy(leaseId, ids)).returning(ID).fetch(ID)
                : dsl.update(table.table())
                        .set(STATUS, DSL.inline(EventStatus.SENT.databaseValue()))
                        .set(SENT_AT, now)
                        .where(heldBy(leaseId, ids))
                        .returning(ID).fetch(ID);
        return result(ids, marked);
    }

    public MarkResult retry(DSLContext dsl, UUID leaseId, Collection<RetryMark> marks) {
        Map<UUID, RetryMark> byId = new LinkedHashMap<>();
        marks.forEach(mark -> byId.put(mark.eventId(), mark));
        if (byId.isEmpty()) {
            return MarkResult.empty();
        }
        Table<?> values = DSL.table("unnest({0}, {1}, {2})",
                uuids(byId.keySet()),
                DSL.val(byId.values().stream().map(RetryMark::error).toArray(String[]::new),
                        SQLDataType.CLOB.array()),
                DSL.val(byId.values().stream().map(RetryMark::nextAttemptAt).toArray(Instant[]::new),
                        SQLDataType.INSTANT.array()))
                .as("m", "m_id", "m_error", "m_next_attempt_at");
        List<UUID> marked = dsl.update(table.table())
                .set(STATUS, DSL.inline(EventStatus.PENDING.databaseValue()))
                .set(ATTEMPTS, ATTEMPTS.plus(DSL.inline(1)))
                .set(LAST_ERROR, M_ERROR)
                .set(NEXT_ATTEMPT_AT, M_NEXT)
                .setNull(LEASE_ID)
                .setNull(LEASED_AT)
                .from(values)
                .where(ID.eq(M_ID))
                .and(LEASE_ID.eq(leaseId))
                .and(statusIs(EventStatus.IN_FLIGHT))
                .returning(ID).fetch(ID);
        return result(byId.keySet(), marked);
    }

    public MarkResult deadLettered(DSLContext dsl, UUID leaseId, Collection<DeadLetterMark> marks) {
        Map<UUID, DeadLetterMark> byId = new LinkedHashMap<>();
        marks.forEach(mark -> byId.put(mark.eventId(), mark));
        if (byId.isEmpty()) {
            return MarkResult.empty();
        }
        Table<?> values = DSL.table("unnest({0}, {1})",
                uuids(byId.keySet()),
                DSL.val(byId.values().stream().map(DeadLetterMark::error).toArray(String[]::new),
                        SQLDataType.CLOB.array()))
                .as("m", "m_id", "m_error");
        List<UUID> marked = dsl.update(table.table())
                .set(STATUS, DSL.inline(EventStatus.FAILED.databaseValue()))
                .set(ATTEMPTS, ATTEMPTS.plus(DSL.inline(1)))
                .set(LAST_ERROR, M_ERROR)
                .setNull(LEASE_ID)
                .setNull(LEASED_AT)
                .from(values)
                .where(ID.eq(M_ID))
                .and(LEASE_ID.eq(leaseId))
                .and(statusIs(EventStatus.IN_FLIGHT))
                .returning(ID).fetch(ID);
        return result(byId.keySet(), marked);
    }

    public MarkResult released(DSLContext dsl, UUID leaseId, Collection<UUID> eventIds) {
        Set<UUID> ids = new HashSet<>(eventIds);
        if (ids.isEmpty()) {
            return MarkResult.empty();
        }
        List<UUID> marked = dsl.update(table.table())
                .set(STATUS, DSL.inline(EventStatus.PENDING.databaseValue()))
                .setNull(LEASE_ID)
                .setNull(LEASED_AT)
                .where(heldBy(leaseId, ids))
                .returning(ID).fetch(ID);
        return result(ids, marked);
    }

    private static Condition heldBy(UUID leaseId, Set<UUID> ids) {
        return ID.eq(DSL.any(uuids(ids))).and(LEASE_ID.eq(leaseId)).and(statusIs(EventStatus.IN_FLIGHT));
    }

    static Field<UUID[]> uuids(Collection<UUID> ids) {
        return UuidArrays.of(ids);
    }

    private static MarkResult result(Collection<UUID> requested, List<UUID> marked) {
        Set<UUID> lost = new HashSet<>(requested);
        marked.forEach(lost::remove);
        return new MarkResult(new HashSet<>(marked), lost);
    }
}
