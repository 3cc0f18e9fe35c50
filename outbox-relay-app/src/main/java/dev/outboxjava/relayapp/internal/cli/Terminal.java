package dev.outboxjava.relayapp.internal.cli;

/**
 * Untrusted text (types, keys, errors, headers, payloads: written by whoever appends events) made safe
 * for a terminal, by the rule the web console shows them: every control character but LF and tab is
 * written as its escape, a backslash, {@code u} and four hex digits (ESC as <code>&#92;u001B</code>, CR as
 * <code>&#92;u000D</code>), so no escape sequence reaches the terminal raw.
 */
final class Terminal {

    private Terminal() {}

    /** The text with its control characters (LF and tab excepted) as escapes. */
    static String text(String value) {
        StringBuilder out = new StringBuilder(value.length() + 16);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c != '\n' && c != '\t' && escaped(value, i)) {
                out.append(String.format("\\u%04X", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** The text on one line: its LF and tab as escapes too. */
    static String line(String value) {
        return text(value).replace("\n", "\\u000A").replace("\t", "\\u0009");
    }

    private static boolean escaped(String value, int i) {
        char c = value.charAt(i);
        if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
            return true;
        }
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= value.length() || !Character.isLowSurrogate(value.charAt(i + 1));
        }
        return Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(value.charAt(i - 1)));
    }
}
