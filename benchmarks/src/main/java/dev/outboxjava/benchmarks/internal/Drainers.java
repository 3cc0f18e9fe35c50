package dev.outboxjava.benchmarks.internal;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.OutboxStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The database alone: threads that run the store's own lease and mark statements back to back with
 * nothing in between (a publisher that acknowledges instantly), until the backlog is gone.
 */
public final class Drainers {

    private Drainers() {}

    /**
     * Drains until the backlog is empty or {@code window} has passed.
     *
     * @return rows marked per second; fails when the backlog emptied before {@code expected} rows were marked
     */
    public static double drain(OutboxStore store, int batchSize, int drainers, long expected, Duration window) {
        AtomicLong marked = new AtomicLong();
        long deadline = System.nanoTime() + window.toNanos();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Clock clock = Clock.systemUTC();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < drainers; i++) {
            threads.add(new Thread(
                    () -> {
                        try {
                            while (System.nanoTime() < deadline) {
                                UUID lease = UUID.randomUUID();
                                Instant now = clock.instant();
                                List<OutboxEvent> batch = store.lease(lease, batchSize, now);
                                if (batch.isEmpty()) {
                                    return;
                                }
                                List<UUID> ids = new ArrayList<>(batch.size());
                                batch.forEach(event -> ids.add(event.id()));
                                marked.addAndGet(store.markPublished(lease, ids, clock.instant())
                                        .marked()
                                        .size());
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    "bench-drainer-" + i));
        }
        long start = System.nanoTime();
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while draining", e);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (failure.get() != null) {
            throw new IllegalStateException("a drainer failed: " + failure.get(), failure.get());
        }
        if (marked.get() != expected && System.nanoTime() < deadline) {
            throw new IllegalStateException("drained " + marked.get() + " rows, expected " + expected);
        }
        return marked.get() / seconds;
    }
}
