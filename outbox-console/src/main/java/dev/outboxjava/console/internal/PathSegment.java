package dev.outboxjava.console.internal;

import java.nio.charset.StandardCharsets;

/**
 * An outbox's label as one segment of a URL path. Labels come from schema names, which a quoted
 * identifier lets hold any character: everything but the unreserved characters is percent-encoded, so a
 * label can neither leave its segment ({@code /}) nor its attribute ({@code "}).
 */
final class PathSegment {

    private PathSegment() {}

    static String encode(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)));
                out.append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
            }
        }
        return out.toString();
    }
}
