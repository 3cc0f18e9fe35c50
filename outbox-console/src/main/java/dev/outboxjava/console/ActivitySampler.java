package dev.outboxjava.console;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.OutboxStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples, in memory, what the overview charts: events published per second (from the worker's own
 * published counter) and events pending, every {@link #INTERVAL}, for the last {@link #WINDOW}. No
 * extra infrastructure: the history starts when the process does and ends with it.
 */
public final class ActivitySampler implements AutoCloseable {

    /** Time between samples. */
    public static final Duration INTERVAL = Duration.ofSeconds(10);
    /** How far back the charts go. */
    public static final Duration WINDOW = Duration.ofHours(1);

    private static final Logger log = LoggerFactory.getLogger(ActivitySampler.class);
    private static final int CAPACITY = (int) (WINDOW.toSeconds() / INTERVAL.toSeconds());

    /**
     * One sample.
     *
     * @param at                when
     * @param publishedPerSecond events published per second since the previous sample
     * @param pending           events pending at that moment
     */
    public record Sample(Instant at, double publishedPerSecond, long pending) {}

    private final OutboxStore store;
    private final LongSupplier publishedTotal;
    private final Clock clock;
    private final Deque<Sample> samples = new ArrayDeque<>();
    private ScheduledExecutorService executor;
    private long lastTotal = -1;
    private Instant lastAt;

    /**
     * @param store          where the pending count is read
     * @param publishedTotal the number of events this process has published so far (a counter)
     */
    public ActivitySampler(OutboxStore store, LongSupplier publishedTotal, Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.publishedTotal = Objects.requireNonNull(publishedTotal, "publishedTotal");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Takes a sample now and then every {@link #INTERVAL} on a daemon thread. */
    public synchronized ActivitySampler start() {
        if (executor == null) {
            executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "outbox-console-sampler");
                thread.setDaemon(true);
                return thread;
            });
            // the task catches its own failures; the future only matters to cancel it, which shutdownNow does
            var unused =
                    executor.scheduleAtFixedRate(this::sampleQuietly, 0, INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        }
        return this;
    }

    private void sampleQuietly() {
        try {
            sample();
        } catch (RuntimeException e) {
            log.debug("console sample skipped: {}", e.getMessage());
        }
    }

    /** Takes one sample (the first gives no rate: it is the reference). */
    public synchronized void sample() {
        Instant now = clock.instant();
        long total = publishedTotal.getAsLong();
        long pending = store.countByStatus().getOrDefault(EventStatus.PENDING, 0L);
        double rate = 0;
        if (lastTotal >= 0) {
            double seconds = Math.max(0.001, Duration.between(lastAt, now).toMillis() / 1000.0);
            rate = Math.max(0, total - lastTotal) / seconds;
        }
        lastTotal = total;
        lastAt = now;
        samples.addLast(new Sample(now, rate, pending));
        while (samples.size() > CAPACITY) {
            samples.removeFirst();
        }
    }

    /** The samples of the last hour, oldest first. */
    public synchronized List<Sample> samples() {
        return new ArrayList<>(samples);
    }

    @Override
    public synchronized void close() {
        if (executor != null) {
            executor.shutdownNow();
            executor = null;
        }
    }
}
