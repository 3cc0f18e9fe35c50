package dev.outboxjava.benchmarks.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Where the relay's events spent their commit → consume time, stage by stage: commit → the wake-up
 * that reached the worker, wake-up → the lease statement's start (the relay thread finishing what it
 * was doing), the lease statement, lease → handed to the producer, handed → acknowledged by the
 * broker, acknowledged → marked. The mark is not on the way to the consumer, but a relay thread
 * leases again only once it has marked, so it is part of the next events' wait.
 *
 * <p>Each stage's own p50 and p99, and the stages of the slowest 1 % (by commit → consume): the tail
 * is the second figure, where its time goes the third. Not thread-safe: filled, then read.
 */
public final class StageBreakdown {

    /** The stages, in an event's order. */
    public static final List<String> STAGES = List.of(
            "commit -> wake-up", "wake-up -> lease", "lease", "-> handed to producer", "-> acknowledged", "-> marked");

    private final List<long[]> rows = new ArrayList<>(); // total, then one per stage (nanoseconds)

    /** One event's commit → consume time and its stages, in {@link #STAGES} order. */
    void add(long total, long... stages) {
        if (stages.length != STAGES.size()) {
            throw new IllegalArgumentException("expected " + STAGES.size() + " stages, got " + stages.length);
        }
        long[] row = new long[stages.length + 1];
        row[0] = total;
        for (int i = 0; i < stages.length; i++) {
            row[i + 1] = Math.max(0, stages[i]);
        }
        rows.add(row);
    }

    /** {@code percentile} of stage {@code stage} (an index of {@link #STAGES}) on its own, in ms; NaN without events. */
    public double percentileMillis(int stage, double percentile) {
        if (rows.isEmpty()) {
            return Double.NaN;
        }
        Histogram h = new Histogram(3_600_000_000L, 3);
        for (long[] row : rows) {
            h.recordValue(Math.min(3_600_000_000L, row[stage + 1] / 1_000));
        }
        return h.getValueAtPercentile(percentile) / 1000.0;
    }

    /** The mean of each stage over the events at or above the commit → consume {@code percentile}, in ms. */
    public double[] slowestMeansMillis(double percentile) {
        double[] means = new double[STAGES.size()];
        if (rows.isEmpty()) {
            return means;
        }
        List<long[]> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingLong(row -> row[0]));
        int first = Math.min(sorted.size() - 1, (int) Math.floor(sorted.size() * percentile / 100.0));
        List<long[]> slowest = sorted.subList(first, sorted.size());
        for (long[] row : slowest) {
            for (int i = 0; i < means.length; i++) {
                means[i] += row[i + 1] / 1e6;
            }
        }
        for (int i = 0; i < means.length; i++) {
            means[i] /= slowest.size();
        }
        return means;
    }

    /**
     * E.g. {@code commit -> wake-up p50 0.4 / p99 1.2, wake-up -> lease 0.1 / 9.8, … ms; the slowest 1 %:
     * commit -> wake-up 1.0, wake-up -> lease 12.4, … ms}.
     */
    public String describe() {
        if (rows.isEmpty()) {
            return "stages: n/a";
        }
        StringBuilder text = new StringBuilder("per stage p50 / p99: ");
        for (int i = 0; i < STAGES.size(); i++) {
            text.append(i == 0 ? "" : ", ")
                    .append(String.format(
                            Locale.ROOT,
                            "%s %.1f / %.1f",
                            STAGES.get(i),
                            percentileMillis(i, 50),
                            percentileMillis(i, 99)));
        }
        text.append(" ms; the slowest 1 %, mean per stage: ");
        double[] slowest = slowestMeansMillis(99);
        for (int i = 0; i < STAGES.size(); i++) {
            text.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%s %.1f", STAGES.get(i), slowest[i]));
        }
        return text.append(" ms (")
                .append(String.format(Locale.ROOT, "%,d", rows.size()))
                .append(" events)")
                .toString();
    }
}
