package dev.outboxjava.examples.demo;

import dev.outboxjava.examples.orders.OrderEvents;
import dev.outboxjava.examples.shipping.Applied;
import dev.outboxjava.examples.shipping.ReceivedEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Counters of the demo run and the order-to-shipment latency (from the order's {@code placedAt}, just
 * before its commit, to the consumer's commit of the shipment), recorded in an HdrHistogram.
 * Thread-safe.
 */
final class DemoStats {

    private static final long MAX_LATENCY_MICROS = Duration.ofMinutes(10).toNanos() / 1000;

    private final Clock clock;
    private final LongAdder written = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final AtomicLong consumed = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong firstConsumedAtNanos = new AtomicLong();
    private final Recorder recorder = new Recorder(MAX_LATENCY_MICROS, 3);
    private final Histogram total = new Histogram(MAX_LATENCY_MICROS, 3);

    DemoStats(Clock clock) {
        this.clock = clock;
    }

    void orderWritten() {
        written.increment();
    }

    void orderRejected() {
        rejected.increment();
    }

    /** The consumer's listener: counts and times what it applied. */
    void onApplied(Applied applied) {
        Instant now = clock.instant();
        for (ReceivedEvent event : applied.applied()) {
            Instant placedAt = OrderEvents.readPlaced(event.payload()).placedAt();
            long micros = Math.max(0, Duration.between(placedAt, now).toNanos() / 1000);
            recorder.recordValue(Math.min(micros, MAX_LATENCY_MICROS));
        }
        if (!applied.applied().isEmpty()) {
            firstConsumedAtNanos.compareAndSet(0, System.nanoTime());
        }
        consumed.addAndGet(applied.applied().size());
        duplicates.addAndGet(applied.duplicates().size());
    }

    long written() {
        return written.sum();
    }

    long rejected() {
        return rejected.sum();
    }

    long consumed() {
        return consumed.get();
    }

    long duplicates() {
        return duplicates.get();
    }

    /** {@code System.nanoTime()} of the first applied event, 0 before. */
    long firstConsumedAtNanos() {
        return firstConsumedAtNanos.get();
    }

    /** Latency percentile in milliseconds over everything recorded so far. */
    synchronized double latencyMillis(double percentile) {
        total.add(recorder.getIntervalHistogram());
        return total.getTotalCount() == 0 ? 0 : total.getValueAtPercentile(percentile) / 1000.0;
    }
}
