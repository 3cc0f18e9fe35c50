package dev.outboxjava.benchmarks.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Medians of repeated runs. */
public final class Stats {

    private Stats() {
    }

    /** The median (mean of the middle two for an even count). */
    public static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** "a / b / c" of the individual runs, for the log. */
    public static String runs(List<Double> values, String format) {
        List<String> parts = new ArrayList<>();
        values.forEach(v -> parts.add(String.format(java.util.Locale.ROOT, format, v)));
        return String.join(" / ", parts);
    }
}
