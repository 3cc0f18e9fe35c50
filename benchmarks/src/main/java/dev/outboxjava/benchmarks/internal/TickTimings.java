package dev.outboxjava.benchmarks.internal;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.ForwardingOutboxStore;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.worker.OutboxWakeUp;
import dev.outboxjava.worker.WakeUpSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
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
    /**
     * Per event: nanoTime its lease started ({@link #LEASE_STARTED}), its lease returned, it was handed
     * to the publisher, its publish completed (acknowledged) and its mark returned.
     */
    private final Map<UUID, long[]> eventTimes = new ConcurrentHashMap<>();

    private static final int LEASE_STARTED = 0;
    private static final int LEASE_RETURNED = 1;
    private static final int HANDED = 2;
    private static final int ACKNOWLEDGED = 3;
    private static final int MARKED = 4;

    /** nanoTime of each wake-up signal a wrapped source passed on, in arrival order. */
    private final List<Long> wakeUps = new ArrayList<>();

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
            if (committed >= from && times != null && received != null && times[ACKNOWLEDGED] != 0) {
                rows.add(new long[] {
                    received - committed,
                    times[LEASE_STARTED] - committed,
                    times[LEASE_RETURNED] - times[LEASE_STARTED],
                    times[ACKNOWLEDGED] - times[LEASE_RETURNED],
                    received - times[ACKNOWLEDGED]
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

    /** The same source, noting when each of its signals reached the worker (for {@link #breakdown}). */
    public WakeUpSource wrap(WakeUpSource source) {
        return new WakeUpSource() {
            @Override
            public AutoCloseable start(OutboxWakeUp wakeUp) {
                return source.start(() -> {
                    long now = System.nanoTime();
                    synchronized (wakeUps) {
                        wakeUps.add(now);
                    }
                    wakeUp.signal();
                });
            }

            @Override
            public String expects() {
                return source.expects();
            }
        };
    }

    /**
     * Where each event's commit → consume time went, stage by stage ({@link StageBreakdown}), over the
     * events committed from {@code from} that were acknowledged, marked and received.
     *
     * @param committedAt nanoTime of each event's commit
     * @param receivedAt  nanoTime each event reached the consumer
     */
    public StageBreakdown breakdown(Map<UUID, Long> committedAt, Map<UUID, Long> receivedAt, long from) {
        long[] signals;
        synchronized (wakeUps) {
            signals = wakeUps.stream().mapToLong(Long::longValue).sorted().toArray();
        }
        StageBreakdown breakdown = new StageBreakdown();
        committedAt.forEach((id, committed) -> {
            long[] times = eventTimes.get(id);
            Long received = receivedAt.get(id);
            if (committed < from || times == null || received == null || times[MARKED] == 0) {
                return;
            }
            // the first wake-up after the commit, unless the lease started before one came (a drain, a poll)
            int next = Arrays.binarySearch(signals, committed);
            int index = next >= 0 ? next : -next - 1;
            long woken = index < signals.length ? Math.min(signals[index], times[LEASE_STARTED]) : times[LEASE_STARTED];
            woken = Math.max(woken, committed);
            breakdown.add(
                    received - committed,
                    woken - committed,
                    times[LEASE_STARTED] - woken,
                    times[LEASE_RETURNED] - times[LEASE_STARTED],
                    times[HANDED] - times[LEASE_RETURNED],
                    times[ACKNOWLEDGED] - times[HANDED],
                    times[MARKED] - times[ACKNOWLEDGED]);
        });
        return breakdown;
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
                for (OutboxEvent event : batch) {
                    long[] times = eventTimes.get(event.id());
                    if (times != null) {
                        times[HANDED] = start;
                    }
                }
                return publisher.publish(batch, timeout).whenComplete((result, error) -> {
                    long end = System.nanoTime();
                    publishNanos.add(end - start);
                    publishes.increment();
                    for (OutboxEvent event : batch) {
                        long[] times = eventTimes.get(event.id());
                        if (times != null) {
                            times[ACKNOWLEDGED] = end;
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
                    eventTimes.put(event.id(), new long[] {start, end, 0, 0, 0});
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
                    long end = System.nanoTime();
                    markNanos.add(end - start);
                    marks.increment();
                    for (UUID id : eventIds) {
                        long[] times = eventTimes.get(id);
                        if (times != null) {
                            times[MARKED] = end;
                        }
                    }
                }
            }
        };
    }
}
