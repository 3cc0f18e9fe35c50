package dev.outboxjava.core;

import java.util.regex.Pattern;

/**
 * The rules for an event's own headers: a name every broker accepts and no CloudEvents attribute
 * uses ({@link ReservedHeaders}), and a non-null, storable value of bounded length.
 */
final class EventHeaders {

    // Letters, digits, '-', '_', '.'; must start with a letter. Every broker accepts these and
    // HTTP/CloudEvents bindings can carry them unchanged.
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9._-]*");

    private EventHeaders() {}

    /** @throws InvalidEventException naming {@code headers} when the header is not accepted */
    static void check(String name, String value) {
        if (name == null) {
            throw new InvalidEventException("headers", "a header name is null");
        }
        if (name.length() > OutboxEvent.MAX_HEADER_NAME_LENGTH
                || !NAME.matcher(name).matches()) {
            throw new InvalidEventException(
                    "headers",
                    "header name '" + printable(name) + "' is not accepted: use a "
                            + "letter, then letters, digits, '.', '_' or '-', at most "
                            + OutboxEvent.MAX_HEADER_NAME_LENGTH
                            + " characters");
        }
        if (ReservedHeaders.isReserved(name)) {
            throw new InvalidEventException(
                    "headers",
                    "header name '" + name + "' is reserved for the "
                            + "CloudEvents envelope, which the publisher fills from the event's own fields (ce_*, "
                            + "cloudEvents_*, cloudEvents:* and content-type, in any case)");
        }
        if (value == null) {
            throw new InvalidEventException("headers", "header '" + name + "' has a null value");
        }
        if (value.length() > OutboxEvent.MAX_HEADER_VALUE_LENGTH) {
            throw new InvalidEventException(
                    "headers",
                    "header '" + name + "' value is " + value.length() + " characters, over the maximum of "
                            + OutboxEvent.MAX_HEADER_VALUE_LENGTH);
        }
        StorableText.require("headers", "header '" + name + "' value", value);
    }

    // A rejected name is quoted back to the caller; a NUL or a surrogate would not survive a log line.
    private static String printable(String name) {
        StringBuilder out = new StringBuilder(name.length());
        name.chars().forEach(c -> {
            if (c == 0 || Character.isSurrogate((char) c)) {
                out.append(String.format("\\u%04X", c));
            } else {
                out.append((char) c);
            }
        });
        return out.toString();
    }
}
