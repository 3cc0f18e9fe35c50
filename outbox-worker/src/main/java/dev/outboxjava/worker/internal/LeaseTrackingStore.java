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
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Remembers, per relay thread, which leased events are not marked yet, so that a shutdown that
 * runs out of time can release them to pending at once (attempts unchanged) instead of leaving
 * them in flight until the next process's sweeper. Fencing makes the race with the relay's own
 * late marks harmless: whichever statement comes second sees "lease lost" and changes nothing.
 */
public final class LeaseTrackingStore extends ForwardingOutboxStore {

    private static final Logger log = LoggerFactory.getLogger(LeaseTrackingStore.class);

    private final Map<Thread, OpenLease> open = new ConcurrentHashMap<>();

    public LeaseTrackingStore(OutboxStore delegate) {
        super(delegate);
    }

    private record OpenLease(UUID leaseId, Set<UUID> unmarked) {
    }

    /** Forgets the calling thread's lease (its tick ended, marked or not). */
    public void tickEnded() {
        open.remove(Thread.currentThread());
    }

    /**
     * Releases every leased event not marked yet, of every relay thread.
     *
     * @return how many events went back to pending
     */
    public int releaseOutstanding(Instant now) {
        int released = 0;
        for (Map.Entry<Thread, OpenLease> entry : open.entrySet()) {
            OpenLease lease = entry.getValue();
            List<UUID> ids = List.copyOf(lease.unmarked());
            if (ids.isEmpty()) {
                continue;
            }
            try {
                released += delegate().release(lease.leaseId(), ids, now).marked().size();
            } catch (RuntimeException e) {
                log.warn("could not release {} leased event(s) of lease {} on shutdown; the sweeper of the next "
                        + "worker reclaims them after the lease timeout: {}", ids.size(), lease.leaseId(), e.toString());
            }
        }
        return released;
    }

    @Override
    public List<OutboxEvent> lease(UUID leaseId, int limit, Instant now) {
        List<OutboxEvent> leased = delegate().lease(leaseId, limit, now);
        if (!leased.isEmpty()) {
            Set<UUID> ids = ConcurrentHashMap.newKeySet();
            leased.forEach(event -> ids.add(event.id()));
            open.put(Thread.currentThread(), new OpenLease(leaseId, ids));
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
        return forget(leaseId, delegate().release(leaseId, eventIds, now));
    }

    private MarkResult forget(UUID leaseId, MarkResult result) {
        OpenLease lease = open.get(Thread.currentThread());
        if (lease != null && lease.leaseId().equals(leaseId)) {
            lease.unmarked().removeAll(result.marked());
            lease.unmarked().removeAll(result.leaseLost());
        }
        return result;
    }
}
