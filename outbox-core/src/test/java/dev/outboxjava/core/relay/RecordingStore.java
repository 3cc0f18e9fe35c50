package dev.outboxjava.core.relay;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.DeadLetterSelector;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.RetryMark;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** Passes every call to a real store and remembers the limits the sweeper and the cleaner asked for. */
final class RecordingStore implements OutboxStore {

    private final OutboxStore delegate;
    final List<Integer> sweepLimits = new ArrayList<>();
    final List<Integer> cleanUpLimits = new ArrayList<>();
    final List<Instant> sweepCutoffs = new ArrayList<>();
    final List<Instant> cleanUpCutoffs = new ArrayList<>();

    RecordingStore(OutboxStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public List<OutboxEvent> lease(UUID leaseId, int limit, Instant now) {
        return delegate.lease(leaseId, limit, now);
    }

    @Override
    public MarkResult markPublished(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        return delegate.markPublished(leaseId, eventIds, now);
    }

    @Override
    public MarkResult markRetry(UUID leaseId, Collection<RetryMark> marks, Instant now) {
        return delegate.markRetry(leaseId, marks, now);
    }

    @Override
    public MarkResult markDeadLettered(UUID leaseId, Collection<DeadLetterMark> marks, Instant now) {
        return delegate.markDeadLettered(leaseId, marks, now);
    }

    @Override
    public MarkResult release(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        return delegate.release(leaseId, eventIds, now);
    }

    @Override
    public int sweepExpiredLeases(Instant leasedBefore, int limit) {
        sweepLimits.add(limit);
        sweepCutoffs.add(leasedBefore);
        return delegate.sweepExpiredLeases(leasedBefore, limit);
    }

    @Override
    public int cleanUp(Instant sentBefore, int limit) {
        cleanUpLimits.add(limit);
        cleanUpCutoffs.add(sentBefore);
        return delegate.cleanUp(sentBefore, limit);
    }

    @Override
    public Map<EventStatus, Long> countByStatus() {
        return delegate.countByStatus();
    }

    @Override
    public Optional<Instant> oldestPendingCreatedAt() {
        return delegate.oldestPendingCreatedAt();
    }

    @Override
    public Optional<OutboxEvent> find(UUID eventId) {
        return delegate.find(eventId);
    }

    @Override
    public List<OutboxEvent> listDeadLetters(int offset, int limit) {
        return delegate.listDeadLetters(offset, limit);
    }

    @Override
    public int requeueDeadLetters(DeadLetterSelector selector, Instant now) {
        return delegate.requeueDeadLetters(selector, now);
    }

    @Override
    public long purge(EventStatus status, Instant createdBefore) {
        return delegate.purge(status, createdBefore);
    }

    @Override
    public HealthCheck checkHealth() {
        return delegate.checkHealth();
    }
}
