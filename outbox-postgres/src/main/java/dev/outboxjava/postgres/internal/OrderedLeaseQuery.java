package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

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
 */
public final class OrderedLeaseQuery {

    /** The columns {@link EventRows} reads, in {@link OutboxTable#ALL}'s order (coerced by position). */
    private static final String RETURNED_COLUMNS = java.util.Arrays.stream(OutboxTable.ALL)
            .map(field -> field.getUnqualifiedName().quotedName().toString())
            .collect(java.util.stream.Collectors.joining(", "));

    private final OutboxTable table;
    private final long advisoryLockKey;
    private final boolean deadLetterHoldsKey;

    public OrderedLeaseQuery(OutboxTable table, Ordering ordering) {
        this.table = table;
        this.deadLetterHoldsKey = ordering.deadLetterHoldsKey();
        // A stable 64-bit key per table; collisions with other users of advisory locks only serialize more.
        this.advisoryLockKey = ("outbox-lease:" + table.tableName().display()).hashCode() * 0x9E3779B97F4A7C15L;
    }

    /** Leases up to {@code limit} events in one short transaction; they come back in sequence order. */
    public List<OutboxEvent> lease(DSLContext dsl, UUID leaseId, int limit, Instant now) {
        return dsl.transactionResult(configuration -> {
            DSLContext tx = configuration.dsl();
            tx.execute("SELECT pg_advisory_xact_lock(?)", advisoryLockKey);
            return tx.resultQuery(sql(), leaseId, now, now, now, limit).coerce(OutboxTable.ALL).fetch().stream()
                    .map(EventRows::toEvent)
                    .sorted(Comparator.comparingLong(OutboxEvent::sequence))
                    .toList();
        });
    }

    /** The statement's text, for EXPLAIN in tests. Binds: lease id, now, now, now, limit. */
    public String sql() {
        String t = DSL.using(org.jooq.SQLDialect.POSTGRES).render(table.table());
        String heldByDeadLetter = deadLetterHoldsKey ? " OR b.status = 'failed'" : "";
        return """
                UPDATE %1$s SET status = 'in_flight', lease_id = ?::uuid, leased_at = ?::timestamptz
                 WHERE id IN (
                   SELECT c.id FROM %1$s c
                    WHERE c.status = 'pending' AND c.next_attempt_at <= ?::timestamptz
                      AND (c.event_key IS NULL OR (
                            c.xact_id < pg_snapshot_xmin(pg_current_snapshot())
                        AND NOT EXISTS (
                            SELECT 1 FROM %1$s b
                             WHERE b.event_key = c.event_key AND b.seq < c.seq
                               AND b.status IN ('pending', 'in_flight', 'failed')
                               AND (b.status = 'in_flight'%2$s
                                    OR (b.status = 'pending' AND (b.next_attempt_at > ?::timestamptz
                                        OR b.xact_id >= pg_snapshot_xmin(pg_current_snapshot())))))))
                    ORDER BY c.seq
                    LIMIT ?
                    FOR UPDATE SKIP LOCKED)
                RETURNING %3$s
                """.formatted(t, heldByDeadLetter, RETURNED_COLUMNS);
    }
}
