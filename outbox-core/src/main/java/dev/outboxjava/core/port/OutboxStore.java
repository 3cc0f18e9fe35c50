package dev.outboxjava.core.port;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Where outbox events live between the caller's commit and the broker's acknowledgement.
 *
 * <p>Appending happens inside the caller's own transaction and is therefore each adapter's own API
 * (a JDBC connection, a jOOQ context, ...); this port covers what the relay, the sweeper, the
 * cleaner and an operator do afterwards. Every time is passed in (from the injected clock), never
 * read by the store, so tests control time.
 *
 * <p><b>Fencing.</b> {@link #lease} stamps the events with a lease id. Every {@code mark…} call
 * presents that id and changes only rows that still carry it; the others come back in
 * {@link MarkResult#leaseLost()} (the lease expired and the sweeper, or another relay, took over).
 *
 * <p>Implementations are thread-safe. Failures are reported as
 * {@link dev.outboxjava.core.OutboxStoreException}.
 */
public interface OutboxStore {

    /**
     * Leases up to {@code limit} pending events whose next attempt is due ({@code <= now}), oldest
     * first, moving them to {@link EventStatus#IN_FLIGHT} under {@code leaseId}. Two concurrent
     * callers never receive the same event.
     *
     * @return the leased events, in sequence order, with their new status, lease id and lease time
     */
    List<OutboxEvent> lease(UUID leaseId, int limit, Instant now);

    /** Marks events as {@link EventStatus#SENT} (or deletes them, in a delete-on-publish store). */
    MarkResult markPublished(UUID leaseId, Collection<UUID> eventIds, Instant now);

    /** Returns failed events to {@link EventStatus#PENDING} with one more attempt spent and a next attempt time. */
    MarkResult markRetry(UUID leaseId, Collection<RetryMark> marks, Instant now);

    /** Moves failed events to {@link EventStatus#FAILED} (dead letter) with one more attempt spent. */
    MarkResult markDeadLettered(UUID leaseId, Collection<DeadLetterMark> marks, Instant now);

    /**
     * Returns leased events to {@link EventStatus#PENDING} without spending an attempt: they were not
     * tried (an earlier event of their key failed, or the relay is shutting down).
     */
    MarkResult release(UUID leaseId, Collection<UUID> eventIds, Instant now);

    /**
     * Returns up to {@code limit} events whose lease was taken before {@code leasedBefore} to
     * {@link EventStatus#PENDING}, attempts unchanged, clearing their lease.
     *
     * @return how many were reclaimed
     */
    int sweepExpiredLeases(Instant leasedBefore, int limit);

    /**
     * Deletes up to {@code limit} {@link EventStatus#SENT} events sent before {@code sentBefore}.
     * Dead letters are left for an operator.
     *
     * @return how many were deleted
     */
    int cleanUp(Instant sentBefore, int limit);

    /** How many events are in each state (every state present, zero when empty). */
    Map<EventStatus, Long> countByStatus();

    /**
     * When the oldest pending event was appended; empty when nothing is pending. Counts every pending
     * event, also those scheduled for later or waiting for a retry: use {@link #backlog} for the relay's lag.
     */
    Optional<Instant> oldestPendingCreatedAt();

    /**
     * The pending events at {@code now} by what they wait for: eligible (due and, under per-key ordering,
     * not held back by an earlier event of their key that waits for a retry, is scheduled, or was
     * dead-lettered), retrying, scheduled, held; and since when the longest-waiting eligible event has been
     * due. See {@link Backlog}.
     */
    Backlog backlog(Instant now);

    /** One event by id. */
    Optional<OutboxEvent> find(UUID eventId);

    /** Whether the store can reach its database now. */
    HealthCheck checkHealth();

    /**
     * The ordering this store leases in. The relay holds back events of a key within a batch by the
     * same ordering, so a worker takes it from its store. Default {@link Ordering#none()}.
     */
    default Ordering ordering() {
        return Ordering.none();
    }
}
