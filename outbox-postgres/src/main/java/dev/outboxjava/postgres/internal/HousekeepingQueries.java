package dev.outboxjava.postgres.internal;

import static dev.outboxjava.postgres.internal.OutboxTable.CREATED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASE_ID;
import static dev.outboxjava.postgres.internal.OutboxTable.SENT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.statusIs;

import dev.outboxjava.core.EventStatus;
import java.time.Instant;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * Sweep, cleanup and purge: each statement touches a bounded chunk, picked with
 * {@code FOR UPDATE SKIP LOCKED} so it never waits for (or blocks) a relay marking the same rows.
 */
public final class HousekeepingQueries {

    /** Rows per purge statement: an operator's purge of millions of rows runs as many short statements. */
    public static final int PURGE_CHUNK = 10_000;

    private final OutboxTable table;

    public HousekeepingQueries(OutboxTable table) {
        this.table = table;
    }

    /** Expired leases back to pending, attempts unchanged; at most {@code limit} rows. */
    public int sweep(DSLContext dsl, Instant leasedBefore, int limit) {
        var expired = DSL.select(ID)
                .from(table.table())
                .where(statusIs(EventStatus.IN_FLIGHT))
                .and(LEASED_AT.lt(leasedBefore))
                .orderBy(LEASED_AT)
                .limit(limit)
                .forUpdate()
                .skipLocked();
        return dsl.update(table.table())
                .set(STATUS, DSL.inline(EventStatus.PENDING.databaseValue()))
                .setNull(LEASE_ID)
                .setNull(LEASED_AT)
                .where(ID.in(expired))
                .execute();
    }

    /** Deletes at most {@code limit} sent rows older than the retention. */
    public int cleanUp(DSLContext dsl, Instant sentBefore, int limit) {
        var old = DSL.select(ID)
                .from(table.table())
                .where(statusIs(EventStatus.SENT))
                .and(SENT_AT.lt(sentBefore))
                .orderBy(SENT_AT)
                .limit(limit)
                .forUpdate()
                .skipLocked();
        return dsl.deleteFrom(table.table()).where(ID.in(old)).execute();
    }

    /** Deletes terminal rows created before a time, {@value #PURGE_CHUNK} per statement. */
    public long purge(DSLContext dsl, EventStatus status, Instant createdBefore) {
        long total = 0;
        int deleted;
        do {
            var chunk = DSL.select(ID)
                    .from(table.table())
                    .where(statusIs(status))
                    .and(CREATED_AT.lt(createdBefore))
                    .limit(PURGE_CHUNK)
                    .forUpdate()
                    .skipLocked();
            deleted = dsl.deleteFrom(table.table()).where(ID.in(chunk)).execute();
            total += deleted;
        } while (deleted == PURGE_CHUNK);
        return total;
    }
}
