package dev.outboxjava.core.port;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * An {@link OutboxStore} that hands every call to another one. Extend it to watch or alter a few
 * calls (track leases, time statements, inject faults) and inherit the rest unchanged.
 */
public abstract class ForwardingOutboxStore implements OutboxStore {

    private final OutboxStore delegate;

    protected ForwardingOutboxStore(OutboxStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The store calls are handed to; every forwarding method asks for it anew, so it may be overridden. */
    protected OutboxStore delegate() {
        return delegate;
    }

    @Override
    public List<OutboxEvent> lease(UUID leaseId, int limit, Instant now) {
        return delegate().lease(leaseId, limit, now);
    }

    @Override
    public MarkResult markPublished(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        return delegate().markPublished(leaseId, eventIds, now);
    }

    @Override
    public MarkResult markRetry(UUID leaseId, Collection<RetryMark> marks, Instant now) {
        return delegate().markRetry(leaseId, marks, now);
    }

    @Override
    public MarkResult markDeadLettered(UUID leaseId, Collection<DeadLetterMark> marks, Instant now) {
        return delegate().markDeadLettered(leaseId, marks, now);
    }

    @Override
    public MarkResult release(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        return delegate().release(leaseId, eventIds, now);
    }

    @Override
    public int sweepExpiredLeases(Instant leasedBefore, int limit) {
        return delegate().sweepExpiredLeases(leasedBefore, limit);
    }

    @Override
    public int cleanUp(Instant sentBefore, int limit) {
        return delegate().cleanUp(sentBefore, limit);
    }

    @Override
    public Map<EventStatus, Long> countByStatus() {
        return delegate().countByStatus();
    }

    @Override
    public Optional<Instant> oldestPendingCreatedAt() {
        return delegate().oldestPendingCreatedAt();
    }

    @Override
    public Backlog backlog(Instant now) {
        return delegate().backlog(now);
    }

    @Override
    public Optional<OutboxEvent> find(UUID eventId) {
        return delegate().find(eventId);
    }

    @Override
    public HealthCheck checkHealth() {
        return delegate().checkHealth();
    }

    @Override
    public dev.outboxjava.core.Ordering ordering() {
        return delegate().ordering();
    }
}
