package dev.outboxjava.testkit.contract;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A message as a consumer read it back from a broker, reduced to what an outbox event carries.
 *
 * @param id          the CloudEvents id (the outbox event id)
 * @param type        the CloudEvents type
 * @param source      the CloudEvents source
 * @param key         the partition / aggregate key, when the event had one
 * @param contentType the payload's media type
 * @param headers     the event's own headers (without the CloudEvents envelope)
 * @param payload     the payload bytes
 * @param attributes  every CloudEvents attribute the message carried, by attribute name without the
 *                    binding's prefix ({@code id}, {@code source}, {@code specversion}, {@code type},
 *                    {@code time}, {@code datacontenttype}, {@code subject}, {@code dataschema},
 *                    {@code partitionkey}; see {@link dev.outboxjava.core.CloudEventAttributes}); empty
 *                    when the reader does not collect them
 */
public record ReceivedMessage(
        String id,
        String type,
        String source,
        Optional<String> key,
        String contentType,
        Map<String, String> headers,
        byte[] payload,
        Map<String, String> attributes) {

    public ReceivedMessage {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(key, "key");
        headers = Map.copyOf(headers);
        payload = payload.clone();
        attributes = Map.copyOf(attributes);
    }

    /** A message whose reader does not collect the CloudEvents attributes. */
    public ReceivedMessage(
            String id,
            String type,
            String source,
            Optional<String> key,
            String contentType,
            Map<String, String> headers,
            byte[] payload) {
        this(id, type, source, key, contentType, headers, payload, Map.of());
    }

    @Override
    public byte[] payload() {
        return payload.clone();
    }
}
