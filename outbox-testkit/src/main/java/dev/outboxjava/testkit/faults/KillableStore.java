package dev.outboxjava.testkit.faults;

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
import java.util.function.Supplier;

/**
 * A store that stops working for good once its relay is declared dead: every call then fails, as if the
 * process holding it had vanished. That is how an in-JVM relay "dies" without taking the JVM with it.
 */
final class KillableStore implements OutboxStore {

    private final OutboxStore delegate;
    private final String relayName;
    private volatile boolean dead;

    KillableStore(OutboxStore delegate, String relayName) {
        this.delegate = delegate;
        this.relayName = relayName;
    }

    void kill() {
        dead = true;
    }

    private <T> T call(Supplier<T> action) {
        if (dead) {
            throw new OutboxStoreException("relay " + relayName + " is dead (fault injected): no more database calls");
        }
        return action.get();
    }

    @Override
    public List<OutboxEvent> lease(UUID leaseId, int limit, Instant now) {
        return call(() -> delegate.lease(leaseId, limit, now));
    }

    @Override
    public MarkResult markPublished(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        return call(() -> delegate.markPublished(leaseId, eventIds, now));
    }

    @Override
    public MarkResult markRetry(UUID leaseId, Collection<RetryMark> marks, Instant now) {
        return call(() -> delegate.markRetry(leaseId, marks, now));
    }

    @Override
    public MarkResult markDeadLettered(UUID leaseId, Collection<DeadLetterMark> marks, Instant now) {
        return call(() -> delegate.markDeadLettered(leaseId, marks, now));
    }

    @Override
    public MarkResult release(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        return call(() -> delegate.release(leaseId, eventIds, now));
    }

    @Override
    public int sweepExpiredLeases(Instant leasedBefore, int limit) {
        return call(() -> delegate.sweepExpiredLeases(leasedBefore, limit));
    }

    @Override
    public int cleanUp(Instant sentBefore, int limit) {
        return call(() -> delegate.cleanUp(sentBefore, limit));
    }

    @Override
    public Map<EventStatus, Long> countByStatus() {
        return call(delegate::countByStatus);
    }

    @Override
    public Optional<Instant> oldestPendingCreatedAt() {
        return call(delegate::oldestPendingCreatedAt);
    }

    @Override
    public Optional<OutboxEvent> find(UUID eventId) {
        return call(() -> delegate.find(eventId));
    }

    @Override
    public List<OutboxEvent> listDeadLetters(int offset, int limit) {
        return call(() -> delegate.listDeadLetters(offset, limit));
    }

    @Override
    public int requeueDeadLetters(DeadLetterSelector selector, Instant now) {
        return call(() -> delegate.requeueDeadLetters(selector, now));
    }

    @Override
    public long purge(EventStatus status, Instant createdBefore) {
        return call(() -> delegate.purge(status, createdBefore));
    }

    @Override
    public HealthCheck checkHealth() {
        return dead ? HealthCheck.down("relay " + relayName + " is dead (fault injected)") : delegate.checkHealth();
    }
}
