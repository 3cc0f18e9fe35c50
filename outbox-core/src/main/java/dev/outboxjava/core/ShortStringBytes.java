package dev.outboxjava.core;

import java.nio.charset.StandardCharsets;

/**
 * The rule for the names a broker carries as short strings — {@code type}, {@code destination},
 * {@code routingKey}, {@code contentType}: at most {@value OutboxEvent#MAX_NAME_LENGTH} bytes in
 * UTF-8. AMQP 0-9-1 (exchange, routing key, type and content-type properties) counts bytes, not
 * characters, so a name of 255 characters outside ASCII could be built and then never be published.
 */
final class ShortStringBytes {

    private ShortStringBytes() {}

    /** @throws InvalidEventException naming {@code field} when {@code value} takes more than 255 UTF-8 bytes */
    static void require(String field, String value) {
        // a UTF-16 char takes at most 3 bytes in UTF-8, so short values need no encoding
        if (value.length() <= OutboxEvent.MAX_NAME_LENGTH / 3) {
            return;
        }
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > OutboxEvent.MAX_NAME_LENGTH) {
            throw new InvalidEventException(
                    field,
                    "is " + bytes + " bytes in UTF-8, over the maximum of "
                            + OutboxEvent.MAX_NAME_LENGTH
                            + " (AMQP counts the bytes of exchange, routing key, type and "
                            + "content type)");
        }
    }
}
