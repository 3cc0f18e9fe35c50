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
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where a relay tick's time goes: wraps the store and the publisher the worker is given and adds up
 * the wall time of each lease, each publish (until its future completes) and each mark; and, per
 * event, when its lease started, returned and its publish completed, so that an event's commit →
 * consume time can be split into its stages ({@link #stages}).
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
    /** Per event: nanoTime its lease started, its lease returned, its publish completed. */
    private final Map<UUID, long[]> eventTimes = new ConcurrentHashMap<>();

    /**
     * Mean wall time per lease, publish and mark, the mean batch and how many leases came back empty,
     * e.g. {@code lease 12.1 ms, publish 30.2 ms, mark 9.8 ms; 480 events/lease, 2 of 400 leases empty}.
     */
    public String describe() {
        long n = leases.sum();
        return String.format(
                Locale.ROOT,
                "lease %.1f ms, publish %.1f ms, mark %.1f ms; %.0f events/lease, %,d of %,d " + "leases empty",
                mean(leaseNanos, leases),
                mean(publishNanos, publishes),
                mean(markNanos, marks),
                n == 0 ? 0.0 : (double) leased.sum() / n,
                emptyLeases.sum(),
                n);
    }

    /**
     * Where the slowest events' time went: for the events whose commit → receive time is at or above
     * the given percentile, the mean of each stage — waiting for a lease to start after the commit,
     * the lease statement, the publish until acknowledged, and acknowledgement → consumer — e.g.
     * {@code slowest 1 % (>= 24.1 ms): wait 3.2, lease 4.0, publish 12.5, to consumer 5.1 ms}.
     *
     * @param committedAt nanoTime of each event's commit
     * @param receivedAt  nanoTime each event reached the consumer
     * @param from        events committed before this nanoTime are left out (the warm-up)
     */
    public String stages(Map<UUID, Long> committedAt, Map<UUID, Long> receivedAt, long from, double percentile) {
        List<long[]> rows = new ArrayList<>(); // total, wait, lease, publish, delivery
        committedAt.forEach((id, committed) -> {
            long[] times = eventTimes.get(id);
            Long received = receivedAt.get(id);
            if (committed >= from && times != null && received != null && times[2] != 0) {
                rows.add(new long[] {
                    received - committed,
                    times[0] - committed,
                    times[1] - times[0],
                    times[2] - times[1],
                    received - times[2]
                });
            }
        });
        if (rows.isEmpty()) {
            return "stages: n/a";
        }
        rows.sort(Comparator.comparingLong(row -> row[0]));
        int first = Math.min(rows.size() - 1, (int) Math.floor(rows.size() * percentile / 100.0));
        double[] sums = new double[5];
        for (long[] row : rows.subList(first, rows.size())) {
            for (int i = 0; i < 5; i++) {
                sums[i] += row[i];
            }
        }
        int n = rows.size() - first;
        return String.format(
                Locale.ROOT,
                "slowest %.0f %% (>= %.1f ms): wait for a lease %.1f, lease %.1f, "
                        + "publish %.1f, to consumer %.1f ms",
                100 - percentile,
                rows.get(first)[0] / 1e6,
                sums[1] / n / 1e6,
                sums[2] / n / 1e6,
                sums[3] / n / 1e6,
                sums[4] / n / 1e6);
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
                    long end = System.nanoTime();
                    publishNanos.add(end - start);
                    publishes.increment();
                    for (OutboxEvent event : batch) {
                        long[] times = eventTimes.get(event.id());
                        if (times != null) {
                            times[2] = end;
                        }
                    }
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
                long end = System.nanoTime();
                leaseNanos.add(end - start);
                for (OutboxEvent event : batch) {
                    eventTimes.put(event.id(), new long[] {start, end, 0});
                }
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
