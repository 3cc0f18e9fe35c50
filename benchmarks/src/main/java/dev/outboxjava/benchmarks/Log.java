package dev.outboxjava.benchmarks;

import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/** Progress lines on standard error, so standard output carries only the table. */
public final class Log {

    private Log() {}

    /** One progress line, prefixed with the time of day. */
    public static void line(String format, Object... args) {
        System.err.println(
                LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + " " + String.format(Locale.ROOT, format, args));
    }
}
