package dev.outboxjava.benchmarks.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Medians, quantiles and their precision over repeated runs. */
public final class Stats {

    private Stats() {}

    /** The median (mean of the middle two for an even count). */
    public static double median(List<Double> values) {
        return quantile(values, 0.5);
    }

    /** The {@code q}-quantile (0 ≤ q ≤ 1) by linear interpolation between the nearest ranks. */
    public static double quantile(List<Double> values, double q) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        double rank = q * (sorted.size() - 1);
        int below = (int) Math.floor(rank);
        int above = Math.min(below + 1, sorted.size() - 1);
        return sorted.get(below) + (rank - below) * (sorted.get(above) - sorted.get(below));
    }

    /**
     * About how far the median of these values may sit from the true one: the standard error of a
     * median of a normal sample, its spread estimated from the interquartile range, so that a few
     * wild values (a disk stall in one phase) do not inflate it.
     */
    public static double medianStandardError(List<Double> values) {
        double spread = (quantile(values, 0.75) - quantile(values, 0.25)) / 1.349;
        return 1.2533 * spread / Math.sqrt(values.size());
    }

    /** "a / b / c" of the individual runs, for the log. */
    public static String runs(List<Double> values, String format) {
        List<String> parts = new ArrayList<>();
        values.forEach(v -> parts.add(String.format(java.util.Locale.ROOT, format, v)));
        return String.join(" / ", parts);
    }
}
