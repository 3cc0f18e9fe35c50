package dev.outboxjava.postgres.internal;

import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASE_ID;
import static dev.outboxjava.postgres.internal.OutboxTable.NEXT_ATTEMPT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.statusIs;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.ResultQuery;
import org.jooq.impl.DSL;

/**
 * The lease statement — kept in this one place so an ordering variant (per-key, commit order) can
 * sit beside it. One statement, no transaction around it:
 *
 * <pre>
 * UPDATE t SET status = 'in_flight', lease_id = ?, leased_at = ?
 *  WHERE id IN (SELECT id FROM t WHERE status = 'pending' AND next_attempt_at &lt;= ?
 *                ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED)
 * RETURNING *
 * </pre>
 *
 * The status literal is inlined (see {@link OutboxTable#statusIs}) so the partial index on pending
 * rows serves even a generic plan; the limit stays a bind value so the text never changes.
 */
public final class LeaseQuery {

    private final OutboxTable table;

    public LeaseQuery(OutboxTable table) {
        this.table = table;
    }

    /** The statement, ready to run or to EXPLAIN. */
    public ResultQuery<Record> query(DSLContext dsl, UUID leaseId, int limit, Instant now) {
        var due = DSL.select(ID).from(table.table())
                .where(statusIs(EventStatus.PENDING))
                .and(NEXT_ATTEMPT_AT.le(now))
                .orderBy(SEQ)
                .limit(limit)
                .forUpdate().skipLocked();
        return dsl.update(table.table())
                .set(STATUS, DSL.inline(EventStatus.IN_FLIGHT.databaseValue()))
                .set(LEASE_ID, leaseId)
                .set(LEASED_AT, now)
                .where(ID.in(due))
                .returning(OutboxTable.ALL);
    }

    /** Runs the statement; the events come back in sequence order. */
    public List<OutboxEvent> lease(DSLContext dsl, UUID leaseId, int limit, Instant now) {
        return query(dsl, leaseId, limit, now).fetch().stream()
                .map(EventRows::toEvent)
                .sorted(Comparator.comparingLong(OutboxEvent::sequence))
                .toList();
    }
}
