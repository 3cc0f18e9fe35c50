package dev.outboxjava.console.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the edit form writes text into its boxes and reads it back, exactly: a browser turns every line
 * break of a text box into CR LF and shows control characters as nothing, so they cannot travel raw.
 *
 * <ul>
 *   <li>A control character (U+0000–U+001F and U+007F–U+009F, CR included; in the payload box not LF and
 *       tab; U+2028, U+2029) is written as a backslash, {@code u} and four hex digits: ESC is
 *       <code>&#92;u001B</code>.
 *   <li>Backslashes directly before the text of such an escape are doubled, so the six characters
 *       <code>&#92;u001B</code> of the original are written <code>&#92;&#92;u001B</code>; every other
 *       backslash is written as it is.
 *   <li>Line breaks are read as LF.
 * </ul>
 *
 * {@link #decode} reads back exactly what {@link #encode} wrote, for every string.
 */
public final class EditText {

    /** What the edit page says about the rule, in HTML. */
    public static final String RULE_HTML = "A control character is written <code>\\u</code> and four hex digits "
            + "(ESC is <code>\\u001B</code>, CR <code>\\u000D</code>, BEL <code>\\u0007</code>; in the headers also LF "
            + "<code>\\u000A</code> and tab <code>\\u0009</code>); the text <code>\\u001B</code> itself is written "
            + "<code>\\\\u001B</code> (backslashes before such an escape are doubled); every other character, "
            + "backslashes included, as it is. Line breaks are LF. The payload is saved as UTF-8; a payload that is "
            + "not UTF-8 (binary) cannot be edited here. A box you leave as it is keeps its original bytes exactly.";

    private EditText() {}

    static boolean escaped(char c, boolean lineBreaksRaw) {
        if (lineBreaksRaw && (c == '\n' || c == '\t')) {
            return false;
        }
        return Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
    }

    /** The text as the box shows it. {@code lineBreaksRaw}: LF and tab as they are (payload), or escaped (headers). */
    public static String encode(String value, boolean lineBreaksRaw) {
        StringBuilder out = new StringBuilder(value.length() + 16);
        int i = 0;
        while (i < value.length()) {
            char c = value.charAt(i);
            if (c == '\\') {
                int end = i;
                while (end < value.length() && value.charAt(end) == '\\') {
                    end++;
                }
                int run = end - i;
                // a run before a control character (written as an escape) or before the text of one is doubled
                boolean doubled = end < value.length()
                        && (escaped(value.charAt(end), lineBreaksRaw) || escapeAt(value, end, lineBreaksRaw) >= 0);
                out.append("\\".repeat(doubled ? run * 2 : run));
                i = end;
            } else if (escaped(c, lineBreaksRaw)) {
                out.append(String.format("\\u%04X", (int) c));
                i++;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** The original text of what {@link #encode} wrote (and of what an operator typed by the same rule). */
    public static String decode(String shown, boolean lineBreaksRaw) {
        String value = shown.replace("\r\n", "\n");
        StringBuilder out = new StringBuilder(value.length());
        int i = 0;
        while (i < value.length()) {
            char c = value.charAt(i);
            if (c == '\\') {
                int end = i;
                while (end < value.length() && value.charAt(end) == '\\') {
                    end++;
                }
                int run = end - i;
                int code = escapeAt(value, end, lineBreaksRaw);
                if (code < 0) {
                    out.append("\\".repeat(run));
                    i = end;
                } else if (run % 2 == 1) {
                    out.append("\\".repeat(run / 2)).append((char) code);
                    i = end + 5;
                } else {
                    out.append("\\".repeat(run / 2));
                    i = end; // the escape's text follows as it is
                }
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** The control character that {@code uXXXX} at {@code at} names, or -1. */
    private static int escapeAt(String value, int at, boolean lineBreaksRaw) {
        if (at + 5 > value.length() || value.charAt(at) != 'u') {
            return -1;
        }
        int code = 0;
        for (int j = at + 1; j < at + 5; j++) {
            int digit = Character.digit(value.charAt(j), 16);
            if (digit < 0) {
                return -1;
            }
            code = code * 16 + digit;
        }
        return escaped((char) code, lineBreaksRaw) ? code : -1;
    }

    /** The headers as the box shows them: {@code name: value} a line. */
    public static String encodeHeaders(Map<String, String> headers) {
        StringBuilder lines = new StringBuilder();
        headers.forEach((name, value) -> lines.append(encode(name, false))
                .append(": ")
                .append(encode(value, false))
                .append('\n'));
        return lines.toString();
    }

    /**
     * The headers of the box: {@code name: value} a line, the name trimmed, the value everything after the
     * colon and one space; blank lines are skipped.
     */
    public static Map<String, String> decodeHeaders(String text, List<String> problems) {
        Map<String, String> headers = new LinkedHashMap<>();
        int number = 0;
        for (String line : text.split("\r?\n", -1)) {
            number++;
            if (line.isBlank()) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                problems.add("header line " + number + " is not 'name: value'");
                continue;
            }
            String value = line.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            headers.put(decode(line.substring(0, colon).trim(), false), decode(value, false));
        }
        return headers;
    }
}
