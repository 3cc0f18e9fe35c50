package dev.outboxjava.examples.inbox;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.DeadLetterSelector;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.RetryMark;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The real store, except that while {@link #kill() armed} the relay dies right after the broker
 * acknowledged its batch: the mark never reaches the database. The events stay in flight under a
 * lease nobody will mark, until the sweeper reclaims them and a relay publishes them again — with
 * the same ids.
 */
final class RelayKilledBeforeMark implements OutboxStore {

    private final OutboxStore delegate;
    private volatile boolean killNextMark;

    RelayKilledBeforeMark(OutboxStore delegate) {
        this.delegate = delegate;
    }

    /** The next {@link #markPublished} "kills" the relay instead of marking. */
    void kill() {
        killNextMark = true;
    }

    @Override
    public MarkResult markPublished(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        if (killNextMark) {
            killNextMark = false;
            throw new OutboxStoreException("relay killed between the broker's acknowledgement and the mark of "
                    + eventIds.size() + " event(s)");
        }
        return delegate.markPublished(leaseId, eventIds, now);
    }

    @Override
    public List<OutboxEvent> lease(UUID leaseId, int limit, Instant now) {
        return delegate.lease(leaseId, limit, now);
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
        return delegate.sweepExpiredLeases(leasedBefore, limit);
    }

    @Override
    public int cleanUp(Instant sentBefore, int limit) {
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
