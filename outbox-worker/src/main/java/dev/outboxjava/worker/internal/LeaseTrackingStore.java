package dev.outboxjava.worker.internal;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.ForwardingOutboxStore;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.RetryMark;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Remembers, per open lease, which leased events are not marked yet, so that a shutdown that
 * runs out of time can release them to pending at once (attempts unchanged) instead of leaving
 * them in flight until the next process's sweeper. Fencing makes the race with the relay's own
 * late marks harmless: whichever statement comes second sees "lease lost" and changes nothing.
 */
public final class LeaseTrackingStore extends ForwardingOutboxStore {

    private static final Logger log = LoggerFactory.getLogger(LeaseTrackingStore.class);
    private final java.util.concurrent.atomic.AtomicReference<Optional<Instant>> lastLeaseAt =
            new java.util.concurrent.atomic.AtomicReference<>(Optional.empty());

    /** Unmarked events by lease id (a relay thread may hold two leases while pipelining). */
    private final Map<UUID, Set<UUID>> open = new ConcurrentHashMap<>();
    /** Events released since {@link #countReleases()}: what a shutdown gave back. */
    private final AtomicInteger releasedCount = new AtomicInteger();

    private volatile boolean countingReleases;
    private final Runnable beforeLease;
    private final Runnable afterLease;

    public LeaseTrackingStore(OutboxStore delegate) {
        this(delegate, () -> {}, () -> {});
    }

    /**
     * @param beforeLease runs right before each lease statement (the wake-up notes that the lease covers past signals)
     * @param afterLease  runs once that statement has returned or failed
     */
    public LeaseTrackingStore(OutboxStore delegate, Runnable beforeLease, Runnable afterLease) {
        super(delegate);
        this.beforeLease = beforeLease;
        this.afterLease = afterLease;
    }

    /** From now on, counts the events released (by the relay threads or {@link #releaseOutstanding}). */
    public void countReleases() {
        countingReleases = true;
    }

    /** Events released since {@link #countReleases()}. */
    public int releasedSinceCounting() {
        return releasedCount.get();
    }

    /** Forgets a lease (its batch was completed, marked or not). */
    public void ended(UUID leaseId) {
        open.remove(leaseId);
    }

    /**
     * Releases every leased event not marked yet, of every relay thread.
     *
     * @return how many events went back to pending
     */
    public int releaseOutstanding(Instant now) {
        int released = 0;
        for (Map.Entry<UUID, Set<UUID>> lease : open.entrySet()) {
            List<UUID> ids = List.copyOf(lease.getValue());
            if (ids.isEmpty()) {
                continue;
            }
            try {
                released += release(lease.getKey(), ids, now).marked().size();
            } catch (RuntimeException e) {
                log.warn(
                        "could not release {} leased event(s) of lease {} on shutdown; the sweeper of the next "
                                + "worker reclaims them after the lease timeout: {}",
                        ids.size(),
                        lease.getKey(),
                        e.toString());
            }
        }
        return released;
    }

    /** When a lease last got events (the relay's clock); empty until one did. */
    public Optional<Instant> lastLeaseAt() {
        return lastLeaseAt.get();
    }

    @Override
    public List<OutboxEvent> lease(UUID leaseId, int limit, Instant now) {
        List<OutboxEvent> leased;
        beforeLease.run();
        try {
            leased = delegate().lease(leaseId, limit, now);
        } finally {
            afterLease.run();
        }
        if (!leased.isEmpty()) {
            lastLeaseAt.set(Optional.of(now));
            Set<UUID> ids = ConcurrentHashMap.newKeySet();
            leased.forEach(event -> ids.add(event.id()));
            open.put(leaseId, ids);
        }
        return leased;
    }

    @Override
    public MarkResult markPublished(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        return forget(leaseId, delegate().markPublished(leaseId, eventIds, now));
    }

    @Override
    public MarkResult markRetry(UUID leaseId, Collection<RetryMark> marks, Instant now) {
        return forget(leaseId, delegate().markRetry(leaseId, marks, now));
    }

    @Override
    public MarkResult markDeadLettered(UUID leaseId, Collection<DeadLetterMark> marks, Instant now) {
        return forget(leaseId, delegate().markDeadLettered(leaseId, marks, now));
    }

    @Override
    public MarkResult release(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        MarkResult result = forget(leaseId, delegate().release(leaseId, eventIds, now));
        if (countingReleases) {
            releasedCount.addAndGet(result.marked().size());
        }
        return result;
    }

    private MarkResult forget(UUID leaseId, MarkResult result) {
        Set<UUID> unmarked = open.get(leaseId);
        if (unmarked != null) {
            unmarked.removeAll(result.marked());
            unmarked.removeAll(result.leaseLost());
        }
        return result;
    }
}
