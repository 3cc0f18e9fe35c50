package dev.outboxjava.benchmarks.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * Per interval (a minute by default) of one steady run: commit → consume latency of the events
 * committed in it, the lease statement's time, and what the database said at its end — the pending
 * backlog, the outbox table's dead tuples and the pending index's entries read per scan (the
 * difference of {@code pg_stat_user_indexes} counters between the interval's ends). Times are
 * {@code System.nanoTime()} readings; the run starts at {@code start}. Thread-safe.
 */
public final class MinuteStats {

    /** Database counters read at one interval's end. */
    public record Sample(long pending, long deadTuples, long indexTuplesRead, long indexScans) {}

    /**
     * One interval's figures.
     *
     * @param index           0 for the first interval
     * @param p50Millis       median commit → consume of the events committed in it
     * @param p99Millis       99th percentile of the same; a lower bound when {@code censored} is positive
     * @param delivered       events committed in it that reached the consumer
     * @param censored        events committed in it that had not reached the consumer when the run
     *                        stopped waiting: counted with the time they had waited by then
     * @param pendingAtEnd    pending events at its end
     * @param keptUp          whether at most two seconds' worth of events were pending at its end
     * @param deadTuples      the outbox table's dead tuples at its end ({@code n_dead_tup})
     * @param entriesPerScan  pending-index entries read per index scan during it; NaN without scans
     * @param leaseMillis     mean wall time of the leases that started in it; NaN without leases
     * @param leaseMaxMillis  the longest of them
     * @param leases          how many started in it
     */
    public record Minute(
            int index,
            double p50Millis,
            double p99Millis,
            long delivered,
            long censored,
            long pendingAtEnd,
            boolean keptUp,
            long deadTuples,
            double entriesPerScan,
            double leaseMillis,
            double leaseMaxMillis,
            long leases) {}

    private final long start;
    private final long intervalNanos;
    private final Map<Integer, Histogram> latency = new TreeMap<>();
    private final Map<Integer, long[]> counts = new TreeMap<>(); // delivered, censored
    private final Map<Integer, long[]> leases = new TreeMap<>(); // count, total nanos, max nanos
    private final Map<Integer, Sample> samples = new TreeMap<>();
    private Sample baseline = new Sample(0, 0, 0, 0);

    public MinuteStats(long start, long intervalNanos) {
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException("intervalNanos must be positive");
        }
        this.start = start;
        this.intervalNanos = intervalNanos;
    }

    /** The interval {@code nanoTime} falls in; negative before the start. */
    public int interval(long nanoTime) {
        return (int) Math.floorDiv(nanoTime - start, intervalNanos);
    }

    /** When interval {@code index} ends. */
    public long end(int index) {
        return start + (index + 1) * intervalNanos;
    }

    /**
     * How many intervals of {@code interval} (at most the run's length) a run of {@code duration} has: the
     * last one may be shorter.
     */
    public static int intervals(Duration duration, Duration interval) {
        long length = Math.min(interval.toNanos(), duration.toNanos());
        return (int) Math.max(1, (duration.toNanos() + length - 1) / length);
    }

    /**
     * Starts a thread that, at the end of each of the first {@code intervals} intervals, records what
     * {@code sampler} reads then; join it to wait for the last.
     */
    public Thread sampleEachInterval(int intervals, Supplier<Sample> sampler, String threadName) {
        Thread thread = new Thread(
                () -> {
                    for (int i = 0; i < intervals; i++) {
                        long wait;
                        while ((wait = end(i) - System.nanoTime()) > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        sample(i, sampler.get());
                    }
                },
                threadName);
        thread.start();
        return thread;
    }

    /** An event committed at {@code committedAt} reached the consumer at {@code receivedAt}. */
    public synchronized void delivered(long committedAt, long receivedAt) {
        record(committedAt, receivedAt, 0);
    }

    /** An event committed at {@code committedAt} had not reached the consumer at {@code gaveUpAt}. */
    public synchronized void undelivered(long committedAt, long gaveUpAt) {
        record(committedAt, gaveUpAt, 1);
    }

    private void record(long committedAt, long until, int slot) {
        int index = interval(committedAt);
        if (index < 0) {
            return;
        }
        latency.computeIfAbsent(index, i -> new Histogram(3_600_000_000L, 3))
                .recordValue(Math.min(3_600_000_000L, Math.max(0, (until - committedAt) / 1_000)));
        counts.computeIfAbsent(index, i -> new long[2])[slot]++;
    }

    /** A lease that started at {@code startedAt} took {@code nanos}. */
    public synchronized void lease(long startedAt, long nanos) {
        int index = interval(startedAt);
        if (index < 0) {
            return;
        }
        long[] l = leases.computeIfAbsent(index, i -> new long[3]);
        l[0]++;
        l[1] += nanos;
        l[2] = Math.max(l[2], nanos);
    }

    /** The counters before the first interval: the baseline of the first interval's differences. */
    public synchronized void baseline(Sample sample) {
        baseline = sample;
    }

    /** The counters at the end of interval {@code index}. */
    public synchronized void sample(int index, Sample sample) {
        samples.put(index, sample);
    }

    /**
     * The intervals with a sample at their end, in order.
     *
     * @param ratePerSecond the rate the producers were asked for: an interval kept up when at most two
     *                      seconds' worth of events were pending at its end
     */
    public synchronized List<Minute> minutes(int ratePerSecond) {
        List<Minute> minutes = new ArrayList<>();
        Sample previous = baseline;
        for (Map.Entry<Integer, Sample> entry : samples.entrySet()) {
            int index = entry.getKey();
            Sample s = entry.getValue();
            Histogram h = latency.get(index);
            long[] c = counts.getOrDefault(index, new long[2]);
            long[] l = leases.getOrDefault(index, new long[3]);
            long scans = s.indexScans() - previous.indexScans();
            double perScan =
                    scans <= 0 ? Double.NaN : (double) (s.indexTuplesRead() - previous.indexTuplesRead()) / scans;
            minutes.add(new Minute(
                    index,
                    h == null ? Double.NaN : h.getValueAtPercentile(50) / 1000.0,
                    h == null ? Double.NaN : h.getValueAtPercentile(99) / 1000.0,
                    c[0],
                    c[1],
                    s.pending(),
                    s.pending() <= 2L * ratePerSecond,
                    s.deadTuples(),
                    perScan,
                    l[0] == 0 ? Double.NaN : l[1] / 1e6 / l[0],
                    l[2] / 1e6,
                    l[0]));
            previous = s;
        }
        return minutes;
    }

    /** Median and 99th percentile over every interval (events committed before the start left out). */
    public synchronized double[] wholeRunMillis() {
        Histogram all = new Histogram(3_600_000_000L, 3);
        latency.values().forEach(all::add);
        return all.getTotalCount() == 0
                ? new double[] {Double.NaN, Double.NaN}
                : new double[] {all.getValueAtPercentile(50) / 1000.0, all.getValueAtPercentile(99) / 1000.0};
    }

    /** Events committed (in any interval) that reached the consumer, and that had not. */
    public synchronized long[] deliveredAndCensored() {
        long[] total = new long[2];
        counts.values().forEach(c -> {
            total[0] += c[0];
            total[1] += c[1];
        });
        return total;
    }
}
