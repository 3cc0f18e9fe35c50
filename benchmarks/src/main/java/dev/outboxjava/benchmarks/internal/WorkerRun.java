package dev.outboxjava.benchmarks.internal;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.WakeUpSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Builds the library's worker as a user would, counting what it publishes. */
public final class WorkerRun {

    private WorkerRun() {}

    /** Counts events the relay marked published. */
    public static final class PublishedCounter implements RelayListener {
        private final AtomicLong published = new AtomicLong();

        @Override
        public void onPublished(OutboxEvent event, Instant acknowledgedAt) {
            published.incrementAndGet();
        }

        public long published() {
            return published.get();
        }
    }

    /** A worker with {@code threads} relay threads of {@code batchSize}, no cleaner, the given wake-up sources. */
    public static OutboxWorker worker(
            OutboxStore store,
            Publisher publisher,
            int threads,
            int batchSize,
            Duration pollInterval,
            RelayListener listener,
            List<WakeUpSource> wakeUps) {
        return worker(store, publisher, threads, batchSize, Ordering.none(), pollInterval, listener, wakeUps);
    }

    /**
     * A worker on the library's defaults (relay threads, batch size for the store's ordering, poll
     * interval), no cleaner, the given wake-up sources.
     *
     * @param threads relay threads; 0: the library's default
     */
    public static OutboxWorker defaults(
            OutboxStore store, Publisher publisher, int threads, RelayListener listener, List<WakeUpSource> wakeUps) {
        OutboxWorkerConfig.Builder config = OutboxWorkerConfig.builder().cleanerEnabled(false);
        if (threads > 0) {
            config.relayThreads(threads);
        }
        return OutboxWorker.builder()
                .store(store)
                .publisher(publisher)
                .config(config.build())
                .relayListener(listener)
                .wakeUpSources(wakeUps)
                .build();
    }

    /** The same with the given ordering (the store's must be the same). */
    public static OutboxWorker worker(
            OutboxStore store,
            Publisher publisher,
            int threads,
            int batchSize,
            Ordering ordering,
            Duration pollInterval,
            RelayListener listener,
            List<WakeUpSource> wakeUps) {
        OutboxWorkerConfig config = OutboxWorkerConfig.builder()
                .relay(new RelayConfig(batchSize, Duration.ofSeconds(30), ordering))
                .relayThreads(threads)
                .pollInterval(pollInterval)
                .cleanerEnabled(false)
                .build();
        return OutboxWorker.builder()
                .store(store)
                .publisher(publisher)
                .config(config)
                .relayListener(listener)
                .wakeUpSources(wakeUps)
                .build();
    }
}
