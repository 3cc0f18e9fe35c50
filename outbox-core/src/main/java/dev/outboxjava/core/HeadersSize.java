package dev.outboxjava.core;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The rule for the event's own headers taken together: at most {@link OutboxEvent#MAX_HEADERS_BYTES},
 * so that the largest accepted event stays within {@link OutboxEvent#maxEncodedBytes(int)} whatever
 * the number of headers. Counted as the brokers carry them: UTF-8 bytes of names and values plus
 * {@link OutboxEvent#HEADER_OVERHEAD_BYTES} per header.
 */
final class HeadersSize {

    private HeadersSize() {}

    /** @throws InvalidEventException naming {@code headers} when they take more than the maximum */
    static void require(Map<String, String> headers) {
        long bytes = 0;
        for (Map.Entry<String, String> header : headers.entrySet()) {
            bytes += utf8Length(header.getKey()) + utf8Length(header.getValue()) + OutboxEvent.HEADER_OVERHEAD_BYTES;
        }
        if (bytes > OutboxEvent.MAX_HEADERS_BYTES) {
            throw new InvalidEventException(
                    "headers",
                    headers.size() + " headers take " + bytes + " bytes, over the "
                            + "maximum of " + OutboxEvent.MAX_HEADERS_BYTES + " (UTF-8 names and values plus "
                            + OutboxEvent.HEADER_OVERHEAD_BYTES + " per header); put large data in the payload");
        }
    }

    private static int utf8Length(String value) {
        int length = value.length();
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) >= 0x80) {
                return value.getBytes(StandardCharsets.UTF_8).length;
            }
        }
        return length;
    }
}
