package dev.outboxjava.examples.demo;

import java.util.Locale;

/** Formatting for the demo's output. */
final class Progress {

    private Progress() {}

    /** Seconds since {@code startedNanos}, e.g. {@code 2.4 s}. */
    static String seconds(long startedNanos) {
        return String.format(Locale.ROOT, "%.1f s", (System.nanoTime() - startedNanos) / 1e9);
    }

    /** Milliseconds with one decimal, e.g. {@code 12.5 ms}. */
    static String millis(double value) {
        return String.format(Locale.ROOT, "%.1f ms", value);
    }
}
