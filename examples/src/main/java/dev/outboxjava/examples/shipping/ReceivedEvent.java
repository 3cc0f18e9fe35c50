package dev.outboxjava.examples.shipping;

import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * One message as the consumer read it from a broker, reduced to what the handler needs.
 *
 * @param id      the event id (CloudEvents {@code id}; AMQP {@code message_id}): the dedup key
 * @param type    the event type, e.g. {@code order.placed}
 * @param key     the event key, when the broker carries one
 * @param payload the payload bytes
 */
public record ReceivedEvent(UUID id, String type, Optional<String> key, byte[] payload) {

    public ReceivedEvent {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(payload, "payload");
    }
}
