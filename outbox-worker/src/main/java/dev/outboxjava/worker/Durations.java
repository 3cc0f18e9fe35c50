package dev.outboxjava.worker;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and writes durations the way operators type them: {@code 500ms}, {@code 30s}, {@code 2m},
 * {@code 1h}, {@code 7d}, or ISO-8601 ({@code PT30S}).
 */
public final class Durations {

    private static final Pattern SIMPLE = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");
    /** The longest duration accepted: whole days whose nanoseconds still fit a {@code long}. */
    private static final Duration MAX =
            Duration.ofDays(Duration.ofNanos(Long.MAX_VALUE).toDays());

    private Durations() {}

    /**
     * Parses a duration.
     *
     * @throws IllegalArgumentException with a message listing the accepted forms, or saying that the
     *                                  duration is longer than a duration can be here (about 292 years,
     *                                  the nanoseconds a {@code long} holds)
     */
    public static Duration parse(String text) {
        String trimmed = text.trim().toLowerCase(Locale.ROOT);
        Matcher matcher = SIMPLE.matcher(trimmed);
        if (matcher.matches()) {
            try {
                long amount = Long.parseLong(matcher.group(1));
                return bounded(
                        text,
                        switch (matcher.group(2)) {
                            case "ms" -> Duration.ofMillis(amount);
                            case "s" -> Duration.ofSeconds(amount);
                            case "m" -> Duration.ofMinutes(amount);
                            case "h" -> Duration.ofHours(amount);
                            default -> Duration.ofDays(amount);
                        });
            } catch (NumberFormatException | ArithmeticException e) {
                throw tooLong(text);
            }
        }
        if (trimmed.startsWith("p")) {
            try {
                return bounded(text, Duration.parse(trimmed.toUpperCase(Locale.ROOT)));
            } catch (DateTimeParseException e) {
                if (e.getCause() instanceof ArithmeticException) {
                    throw tooLong(text);
                }
                // fall through to the message below
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not a duration; use a whole number with a unit "
                + "(500ms, 30s, 2m, 1h, 7d) or ISO-8601 (PT30S)");
    }

    /** A duration whose nanoseconds fit a long, so the loops can wait for it without overflowing. */
    private static Duration bounded(String text, Duration duration) {
        if (duration.compareTo(MAX) > 0 || duration.compareTo(MAX.negated()) < 0) {
            throw tooLong(text);
        }
        return duration;
    }

    private static IllegalArgumentException tooLong(String text) {
        return new IllegalArgumentException(
                "'" + text + "' is too long; a duration must be at most " + MAX.toDays() + "d (about 292 years)");
    }

    /** Formats in the shortest exact unit: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 7d}. */
    public static String format(Duration duration) {
        if (duration.isZero()) {
            return "0s";
        }
        if (duration.isNegative()) {
            return "-" + format(duration.negated());
        }
        long millis = duration.toMillis();
        if (duration.toNanos() % 1_000_000 != 0) {
            return duration.toString();
        }
        if (millis % 86_400_000 == 0) {
            return millis / 86_400_000 + "d";
        }
        if (millis % 3_600_000 == 0) {
            return millis / 3_600_000 + "h";
        }
        if (millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        }
        if (millis % 1000 == 0) {
            return millis / 1000 + "s";
        }
        return millis + "ms";
    }
}
