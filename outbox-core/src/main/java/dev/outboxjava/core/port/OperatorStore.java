package dev.outboxjava.core.port;

import dev.outboxjava.core.OutboxEvent;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;

/**
 * What an operator reads and repairs in a store, beyond the relay's {@link OutboxStore}: dead letters
 * found by filter and paged by position (fast however many there are), repaired one, many or all at a
 * time, edited and requeued, the keys held behind a failed event, the leases held now, and the audit
 * trail in which every repair is recorded — in the same transaction as the repair itself — and each
 * event's failed attempts, recorded with the relay's failure marks.
 *
 * <p>Every time is passed in; the store reads no clock. {@code actor} names who acted (a login, a
 * token's owner, {@code "cli"}) and is stored as given. Implementations are thread-safe.
 */
public interface OperatorStore {

    /**
     * The dead letters that match {@code filter}, in sequence order (oldest first), starting after
     * position {@code after} (a {@link EventPage#next()} of the previous page; empty = from the start).
     *
     * @param limit at most this many (1 or more)
     */
    EventPage findDeadLetters(DeadLetterFilter filter, OptionalLong after, int limit);

    /**
     * Events waiting for a retry: {@link dev.outboxjava.core.EventStatus#PENDING} after at least one failed attempt,
     * soonest next attempt first (then oldest first), one page at a time. Their
     * {@link OutboxEvent#lastError()} says why the last attempt failed and
     * {@link OutboxEvent#nextAttemptAt()} when the next one is due.
     */
    List<OutboxEvent> listRetrying(int offset, int limit);

    /** How many dead letters match {@code filter}. */
    default long countDeadLetters(DeadLetterFilter filter) {
        return countDeadLetters(filter, Long.MAX_VALUE);
    }

    /**
     * How many dead letters match {@code filter}, counting no further than {@code upTo}: a page that
     * says "10,000 or more" need not count a million rows.
     *
     * @return the count, or {@code upTo} when at least that many match
     */
    long countDeadLetters(DeadLetterFilter filter, long upTo);

    /**
     * Moves the dead letters that match {@code filter} back to pending, due at {@code now}, attempts
     * reset, last error kept; records one audit entry with how many moved and their ids.
     *
     * @return how many were requeued
     */
    long requeueDeadLetters(DeadLetterFilter filter, String actor, Instant now);

    /**
     * Deletes the dead letters that match {@code filter}; records one audit entry with how many went and
     * their ids ({@link AuditEntry#eventIds()}).
     *
     * @return how many were deleted
     */
    long purgeDeadLetters(DeadLetterFilter filter, String actor, Instant now);

    /**
     * Deletes the sent events created before {@code createdBefore}; records one audit entry
     * ({@link AuditEntry#PURGE}, selection {@code status=sent, created<...}) with how many went.
     *
     * @return how many were deleted
     */
    long purgeSent(Instant createdBefore, String actor, Instant now);

    /**
     * Replaces the payload and headers of one dead letter and requeues it (due at {@code now}, attempts
     * reset). The audit entry keeps the original payload and headers beside the new ones.
     *
     * @return the event as requeued; empty when {@code eventId} is not a dead letter (nothing changed)
     * @throws dev.outboxjava.core.InvalidEventException when the edit breaks a content rule (payload
     *         too large, a reserved or oversized header); nothing is changed then
     */
    Optional<OutboxEvent> editAndRequeue(UUID eventId, EventEdit edit, String actor, Instant now);

    /**
     * Keys whose later pending events wait behind an earlier event of the key that failed (a dead
     * letter, when dead letters hold their key, or an event waiting for a retry), with that event;
     * empty unless the store orders per key. Longest held first.
     */
    List<HeldKey> heldKeys(int limit);

    /** Events per destination in each state but sent, most waiting first. */
    List<DestinationCounts> countByDestination(int limit);

    /** The leases held now: events in flight, grouped by lease. */
    List<ActiveLease> activeLeases(int limit);

    /**
     * The failed attempts of one event, oldest first, as recorded when each failure was marked (a retry
     * or the dead letter). They go with the event (cleanup, purge); a requeue keeps them, so the list
     * then shows the attempts before and after it.
     *
     * @return empty when the event never failed or is unknown
     */
    List<Attempt> attempts(UUID eventId);

    /**
     * Dead letters and events waiting for a retry, grouped by {@link ErrorCause cause} of their last
     * error, destination and type: the dead letters' groups first, then the retrying ones, each kind
     * largest first; at most {@code limit} groups.
     */
    List<FailureGroup> failureGroups(int limit);

    /**
     * The distinct values of one field among the dead letters, in alphabetical order, those containing
     * {@code containing} (empty = all), at most {@code limit}: a filter's suggestions.
     */
    List<String> deadLetterValues(DeadLetterFilter.Field field, String containing, int limit);

    /**
     * When each of these events became a dead letter (its latest dead-letter attempt, an operator's
     * {@link #deadLetterNow} included); events that are not dead letters, or whose attempts were not
     * recorded, are left out.
     */
    Map<UUID, Instant> deadLetteredAt(Set<UUID> eventIds);

    /**
     * Makes these events that wait for a retry due at {@code now} (their attempts and last error kept);
     * records one audit entry ({@link AuditEntry#RETRY_NOW}) with the ids that changed. Ids of events that
     * do not wait for a retry are ignored; no ids at all change and record nothing.
     *
     * @return how many changed
     */
    long retryNow(Set<UUID> eventIds, String actor, Instant now);

    /**
     * Turns these events that wait for a retry into dead letters now (last error kept, a dead-letter
     * attempt recorded with the reason {@link dev.outboxjava.core.DeadLetterReason#operator()}); records
     * one audit entry ({@link AuditEntry#DEAD_LETTER}) with the ids that changed. Ids of events that do
     * not wait for a retry are ignored; an event in flight is left alone; no ids at all change and record
     * nothing.
     *
     * @return how many changed
     */
    long deadLetterNow(Set<UUID> eventIds, String actor, Instant now);

    /** Operator actions, newest first, starting after entry id {@code before} (empty = the newest). */
    List<AuditEntry> auditTrail(OptionalLong before, int limit);

    /**
     * The heartbeats of the table's workers ({@link WorkerHeartbeats}), those that stopped beating included
     * ({@link WorkerHeartbeat#isGone}) until they are forgotten, oldest start first; at most {@code limit}.
     * Default: none (a store that records no heartbeats).
     */
    default List<WorkerHeartbeat> workers(int limit) {
        return List.of();
    }
}
