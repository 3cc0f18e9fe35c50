package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.OutboxStoreException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Event headers to and from the {@code headers jsonb} column (a flat JSON object of strings), as the
 * column's text. Most events carry no headers: {@code {}} takes a fast path both ways. The JDK suffices
 * for a flat object of strings, so the store needs no JSON library.
 */
final class HeadersJson {

    /** The text of no headers; what PostgreSQL prints for an empty jsonb object, too. */
    public static final String EMPTY = "{}";

    private HeadersJson() {}

    public static String write(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return EMPTY;
        }
        StringBuilder json = new StringBuilder(headers.size() * 32).append('{');
        boolean first = true;
        for (Map.Entry<String, String> header : headers.entrySet()) {
            if (!first) {
                json.append(',');
            }
            first = false;
            string(json, header.getKey()).append(':');
            string(json, header.getValue());
        }
        return json.append('}').toString();
    }

    /** @param json the column's text; {@code null} (a row written by another program) means no headers */
    public static Map<String, String> read(String json) {
        if (json == null || json.equals(EMPTY)) {
            return Map.of();
        }
        return new Reader(json).object();
    }

    private static StringBuilder string(StringBuilder json, String value) {
        json.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                case '\b' -> json.append("\\b");
                case '\f' -> json.append("\\f");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        return json.append('"');
    }

    /** A reader of exactly one JSON object whose values are all strings (RFC 8259), nothing else. */
    private static final class Reader {
        private final String json;
        private int at;

        Reader(String json) {
            this.json = json;
        }

        Map<String, String> object() {
            Map<String, String> headers = new LinkedHashMap<>();
            expect('{');
            if (peek() == '}') {
                at++;
            } else {
                while (true) {
                    String key = string();
                    expect(':');
                    headers.put(key, string());
                    char next = next();
                    if (next == '}') {
                        break;
                    }
                    if (next != ',') {
                        throw invalid("',' or '}' expected");
                    }
                }
            }
            skipSpace();
            if (at != json.length()) {
                throw invalid("text after the object");
            }
            return Collections.unmodifiableMap(headers);
        }

        private String string() {
            expect('"');
            StringBuilder value = new StringBuilder();
            while (true) {
                if (at >= json.length()) {
                    throw invalid("unterminated string");
                }
                char c = json.charAt(at++);
                if (c == '"') {
                    return value.toString();
                }
                if (c != '\\') {
                    value.append(c);
                    continue;
                }
                if (at >= json.length()) {
                    throw invalid("unterminated escape");
                }
                char escaped = json.charAt(at++);
                switch (escaped) {
                    case '"', '\\', '/' -> value.append(escaped);
                    case 'n' -> value.append('\n');
                    case 'r' -> value.append('\r');
                    case 't' -> value.append('\t');
                    case 'b' -> value.append('\b');
                    case 'f' -> value.append('\f');
                    case 'u' -> {
                        if (at + 4 > json.length()) {
                            throw invalid("short \\u escape");
                        }
                        try {
                            value.append((char) Integer.parseInt(json.substring(at, at + 4), 16));
                        } catch (NumberFormatException e) {
                            throw invalid("bad \\u escape");
                        }
                        at += 4;
                    }
                    default -> throw invalid("bad escape \\" + escaped);
                }
            }
        }

        private void expect(char wanted) {
            if (next() != wanted) {
                throw invalid("'" + wanted + "' expected");
            }
        }

        private char next() {
            skipSpace();
            if (at >= json.length()) {
                throw invalid("unexpected end");
            }
            return json.charAt(at++);
        }

        private char peek() {
            skipSpace();
            return at < json.length() ? json.charAt(at) : 0;
        }

        private void skipSpace() {
            while (at < json.length() && " \t\n\r".indexOf(json.charAt(at)) >= 0) {
                at++;
            }
        }

        private OutboxStoreException invalid(String what) {
            return new OutboxStoreException("the headers column holds something other than a JSON object of strings ("
                    + what + " at character " + at + "); was the row written by another program?");
        }
    }
}
