package dev.outboxjava.worker.observability;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.RelayResult;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs what the relay did as ONE line per interval instead of a line per event:
 * {@code relay summary (60.0s): published 1200, retried 3, dead-lettered 0, lease lost 0, released 0, 61 ticks; lag 0.4s}.
 * The line is written by whichever relay thread finishes the first tick after the interval; an
 * interval in which nothing happened and nothing waits (no lag) is not logged.
 *
 * <p>The lag is the relay's lag, the one readiness compares with {@code outbox.health.max.lag} and the
 * {@code outbox.events.oldest_eligible_age} gauge exports: how long the eligible event that has waited
 * longest has been due. Events waiting for a retry, scheduled for later or held back by their key wait
 * by design and are not lag, however old they are.
 *
 * <p>Thread-safe: the worker's relay threads share one instance.
 */
public final class RelaySummaryListener implements RelayListener {

    private static final Logger log = LoggerFactory.getLogger(RelaySummaryListener.class);
    /** The gauge the lag is read from (registered by the worker's backlog poller). */
    static final String LAG_GAUGE = "outbox.events.oldest_eligible_age";

    private final long intervalNanos;
    private final LongSupplier nanoTime;
    private final DoubleSupplier lagSeconds;
    private final LongAdder published = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final LongAdder deadLettered = new LongAdder();
    private final LongAdder leaseLost = new LongAdder();
    private final LongAdder released = new LongAdder();
    private final LongAdder ticks = new LongAdder();
    private final AtomicLong windowStart;

    RelaySummaryListener(Duration interval, LongSupplier nanoTime, DoubleSupplier lagSeconds) {
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("summary interval must be positive, was " + interval);
        }
        this.intervalNanos = interval.toNanos();
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        this.lagSeconds = Objects.requireNonNull(lagSeconds, "lagSeconds");
        this.windowStart = new AtomicLong(nanoTime.getAsLong());
    }

    /**
     * A summary every {@code interval}, with the lag read from the {@code outbox.events.oldest_eligible_age}
     * gauge of {@code registry} (left out while there is no such gauge).
     */
    public static RelaySummaryListener every(Duration interval, MeterRegistry registry) {
        return every(interval, registry, System::nanoTime);
    }

    /** Like {@link #every(Duration, MeterRegistry)}, on the clock {@code nanoTime} (for tests). */
    static RelaySummaryListener every(Duration interval, MeterRegistry registry, LongSupplier nanoTime) {
        Objects.requireNonNull(registry, "registry");
        return new RelaySummaryListener(interval, nanoTime, () -> {
            Gauge lag = registry.find(LAG_GAUGE).gauge();
            return lag == null ? Double.NaN : lag.value();
        });
    }

    @Override
    public void onPublished(OutboxEvent event, Instant acknowledgedAt) {
        published.increment();
    }

    @Override
    public void onRetryScheduled(OutboxEvent event, String reason, Instant nextAttemptAt) {
        retried.increment();
    }

    @Override
    public void onDeadLettered(OutboxEvent event, String reason, boolean retryable) {
        deadLettered.increment();
    }

    @Override
    public void onReleased(OutboxEvent event) {
        released.increment();
    }

    @Override
    public void onLeaseLost(OutboxEvent event) {
        leaseLost.increment();
    }

    @Override
    public void onTick(RelayResult result) {
        ticks.increment();
        long now = nanoTime.getAsLong();
        long start = windowStart.get();
        if (now - start < intervalNanos || !windowStart.compareAndSet(start, now)) {
            return;
        }
        long p = published.sumThenReset();
        long r = retried.sumThenReset();
        long d = deadLettered.sumThenReset();
        long l = leaseLost.sumThenReset();
        long x = released.sumThenReset();
        long t = ticks.sumThenReset();
        double lag = lagSeconds.getAsDouble();
        if (p + r + d + l + x == 0 && !(lag > 0)) {
            return;
        }
        log.info(String.format(
                Locale.ROOT,
                "relay summary (%.1fs): published %d, retried %d, dead-lettered %d, "
                        + "lease lost %d, released %d, %d ticks%s",
                (now - start) / 1e9,
                p,
                r,
                d,
                l,
                x,
                t,
                Double.isNaN(lag) ? "" : String.format(Locale.ROOT, "; lag %.1fs", lag)));
    }
}
