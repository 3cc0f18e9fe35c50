package dev.outboxjava.console.internal;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Optional;

/**
 * Turns untrusted text into HTML that shows it and does nothing else. Payloads, headers, keys and
 * errors are written by whoever appends events, so every value goes through {@link #text}: markup
 * characters become entities and control characters become visible escapes ({@code \u001B}), so a
 * terminal escape or a NUL never reaches the page raw.
 */
public final class Html {

    private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern(
                    "uuuu-MM-dd HH:mm:ss.SSS 'UTC'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter ISO_MILLIS = DateTimeFormatter.ofPattern(
                    "uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private Html() {}

    /** The text, safe between tags and inside a quoted attribute. */
    public static String text(String value) {
        return escape(value, false);
    }

    /**
     * The text, safe between tags (not in an attribute), each control character's escape marked as one
     * ({@code <span class="control">}, titled with its code), so a real ESC never looks like the text
     * <code>&#92;u001B</code>.
     */
    public static String shown(String value) {
        return escape(value, true);
    }

    private static String escape(String value, boolean marked) {
        if (value == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(value.length() + 16);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                case '\n', '\t' -> out.append(c);
                default -> {
                    if (Character.isISOControl(c)
                            || c == '\u2028'
                            || c == '\u2029'
                            || (Character.isSurrogate(c) && !validPair(value, i))) {
                        String code = String.format("\\u%04X", (int) c);
                        if (marked) {
                            out.append("<span class=\"control\" title=\"control character U+")
                                    .append(code, 2, 6)
                                    .append("\">")
                                    .append(code)
                                    .append("</span>");
                        } else {
                            out.append(code);
                        }
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    private static boolean validPair(String value, int i) {
        char c = value.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(value.charAt(i - 1));
    }

    /** A query parameter value. */
    public static String url(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /** A time to the millisecond in UTC ({@code 2024-03-01 10:00:00.250 UTC}), with how long ago it was. */
    public static String time(Instant at, Instant now) {
        Instant millis = at.truncatedTo(ChronoUnit.MILLIS);
        return "<time datetime=\"" + ISO_MILLIS.format(millis) + "\">" + MILLIS.format(millis)
                + "</time> <span class=\"age\">(" + age(Duration.between(at, now)) + ")</span>";
    }

    /** A time to the millisecond in UTC, without its age. */
    public static String instant(Instant at) {
        return MILLIS.format(at.truncatedTo(ChronoUnit.MILLIS));
    }

    /** A time or a dash. */
    public static String time(Optional<Instant> at, Instant now) {
        return at.map(value -> time(value, now)).orElse("–");
    }

    /** {@code 3h 12m ago}, {@code in 40s}. */
    public static String age(Duration age) {
        boolean future = age.isNegative();
        Duration d = age.abs();
        String text;
        if (d.toDays() > 0) {
            text = d.toDays() + "d " + d.toHoursPart() + "h";
        } else if (d.toHours() > 0) {
            text = d.toHours() + "h " + d.toMinutesPart() + "m";
        } else if (d.toMinutes() > 0) {
            text = d.toMinutes() + "m " + d.toSecondsPart() + "s";
        } else {
            text = d.toSeconds() + "s";
        }
        return future ? "in " + text : text + " ago";
    }

    /** Shortens a long single-line text for a table cell (the full text is on the detail page). */
    public static String shorten(String value, int max) {
        String line = value.replace('\n', ' ');
        return line.length() <= max ? line : line.substring(0, max) + "…";
    }
}
