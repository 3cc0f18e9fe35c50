package dev.outboxjava.core.port;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The cause of a failure as the operator's overview groups it: the error's first line with what varies
 * from one event to the next taken out, so that {@code timeout after 30000 ms, offset 18734} and
 * {@code timeout after 30000 ms, offset 90211} are one cause. Short numbers stay: a reply code such as
 * {@code 404} or {@code 312}, a partition, a count of a few tells causes apart. The rule is written once
 * here and, for stores that group in SQL, once in their query; both must give the same text:
 *
 * <ol>
 *   <li>the text before the first line feed;
 *   <li>each UUID (8-4-4-4-12 hexadecimal digits) replaced by {@code *};
 *   <li>each run of four or more decimal digits replaced by {@code #};
 *   <li>at most {@value #MAX_LENGTH} characters (code points).
 * </ol>
 */
public final class ErrorCause {

    /** The longest cause kept, in characters. */
    public static final int MAX_LENGTH = 200;

    /** A UUID, in the spelling of {@link java.util.UUID#toString()} (any case). */
    public static final String UUID_PATTERN =
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

    /** A run of four or more decimal digits: an id, an offset, a time, not a reply code. */
    public static final String DIGITS_PATTERN = "[0-9]{4,}";

    private static final Pattern UUIDS = Pattern.compile(UUID_PATTERN);
    private static final Pattern DIGITS = Pattern.compile(DIGITS_PATTERN);

    private ErrorCause() {}

    /** The cause of {@code error} (a last error, as stored). */
    public static String of(String error) {
        Objects.requireNonNull(error, "error");
        int lineEnd = error.indexOf('\n');
        String firstLine = lineEnd < 0 ? error : error.substring(0, lineEnd);
        String cause = DIGITS.matcher(UUIDS.matcher(firstLine).replaceAll("*")).replaceAll("#");
        if (cause.codePointCount(0, cause.length()) <= MAX_LENGTH) {
            return cause;
        }
        return cause.substring(0, cause.offsetByCodePoints(0, MAX_LENGTH));
    }
}
