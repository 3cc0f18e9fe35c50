package dev.outboxjava.testkit;

import dev.outboxjava.core.OutboxEvent;
import java.util.Objects;

/** Events at the edges of what {@link OutboxEvent.Builder} accepts, to try a publisher and its broker on. */
public final class TestEvents {

    private TestEvents() {}

    /**
     * The largest event the builder accepts with its default payload limit, for {@code destination}:
     * every name, the key, the subject and the headers at their maxima, in three-byte UTF-8
     * characters where they may have them, and a payload of {@link OutboxEvent#DEFAULT_MAX_PAYLOAD_BYTES}.
     * A publisher should deliver it with its broker's default size settings.
     */
    public static OutboxEvent largestAccepted(String destination) {
        Objects.requireNonNull(destination, "destination");
        String euro = "\u20ac"; // three bytes in UTF-8
        OutboxEvent.Builder builder = OutboxEvent.builder()
                .type(euro.repeat(OutboxEvent.MAX_NAME_LENGTH / 3))
                .source("/" + euro.repeat(OutboxEvent.MAX_NAME_LENGTH - 1))
                .destination(destination)
                .routingKey("r".repeat(OutboxEvent.MAX_NAME_LENGTH))
                .key(euro.repeat(OutboxEvent.MAX_KEY_LENGTH))
                .subject(euro.repeat(OutboxEvent.MAX_SUBJECT_LENGTH))
                .dataSchema("https://example.com/" + "s".repeat(OutboxEvent.MAX_NAME_LENGTH - 20))
                .contentType("application/" + "x".repeat(OutboxEvent.MAX_NAME_LENGTH - 12))
                .payload(new byte[OutboxEvent.DEFAULT_MAX_PAYLOAD_BYTES]);
        // headers until the headers' byte budget is spent, each value as long as the budget still allows
        int left = OutboxEvent.MAX_HEADERS_BYTES;
        for (int n = 0; left > OutboxEvent.HEADER_OVERHEAD_BYTES + 16; n++) {
            String name = String.format("h%03d", n) + "x".repeat(OutboxEvent.MAX_HEADER_NAME_LENGTH - 4);
            int valueBytes = Math.min(
                    OutboxEvent.MAX_HEADER_VALUE_LENGTH * 3, left - name.length() - OutboxEvent.HEADER_OVERHEAD_BYTES);
            if (valueBytes < 3) {
                break;
            }
            builder.header(name, euro.repeat(valueBytes / 3));
            left -= name.length() + OutboxEvent.HEADER_OVERHEAD_BYTES + valueBytes / 3 * 3;
        }
        return builder.build();
    }
}
