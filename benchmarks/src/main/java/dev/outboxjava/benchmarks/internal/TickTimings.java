package dev.outboxjava.benchmarks.internal;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.ForwardingOutboxStore;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where a relay tick's time goes: wraps the store and the publisher the worker is given and adds up
 * the wall time of each lease, each publish (until its future completes) and each mark.
 */
public final class TickTimings {

    private final LongAdder leases = new LongAdder();
    private final LongAdder leaseNanos = new LongAdder();
    private final LongAdder leased = new LongAdder();
    private final LongAdder emptyLeases = new LongAdder();
    private final LongAdder publishes = new LongAdder();
    private final LongAdder publishNanos = new LongAdder();
    private final LongAdder marks = new LongAdder();
    private final LongAdder markNanos = new LongAdder();

    /**
     * Mean wall time per lease, publish and mark, the mean batch and how many leases came back empty,
     * e.g. {@code lease 12.1 ms, publish 30.2 ms, mark 9.8 ms; 480 events/lease, 2 of 400 leases empty}.
     */
    public String describe() {
        long n = leases.sum();
        return String.format(Locale.ROOT, "lease %.1f ms, publish %.1f ms, mark %.1f ms; %.0f events/lease, %,d of %,d "
                + "leases empty", mean(leaseNanos, leases), mean(publishNanos, publishes), mean(markNanos, marks),
                n == 0 ? 0.0 : (double) leased.sum() / n, emptyLeases.sum(), n);
    }

    private static double mean(LongAdder nanos, LongAdder count) {
        long n = count.sum();
        return n == 0 ? Double.NaN : nanos.sum() / 1e6 / n;
    }

    public Publisher wrap(Publisher publisher) {
        return new Publisher() {
            @Override
            public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
                long start = System.nanoTime();
                return publisher.publish(batch, timeout).whenComplete((result, error) -> {
                    publishNanos.add(System.nanoTime() - start);
                    publishes.increment();
                });
            }

            @Override
            public HealthCheck checkHealth() {
                return publisher.checkHealth();
            }

            @Override
            public void close() {
                publisher.close();
            }
        };
    }

    public OutboxStore wrap(OutboxStore store) {
        return new ForwardingOutboxStore(store) {
            @Override
            public List<OutboxEvent> lease(UUID leaseId, int limit, Instant now) {
                long start = System.nanoTime();
                List<OutboxEvent> batch = super.lease(leaseId, limit, now);
                leaseNanos.add(System.nanoTime() - start);
                leases.increment();
                leased.add(batch.size());
                if (batch.isEmpty()) {
                    emptyLeases.increment();
                }
                return batch;
            }

            @Override
            public MarkResult markPublished(UUID leaseId, Collection<UUID> eventIds, Instant now) {
                long start = System.nanoTime();
                try {
                    return super.markPublished(leaseId, eventIds, now);
                } finally {
                    markNanos.add(System.nanoTime() - start);
                    marks.increment();
                }
            }
        };
    }
}
