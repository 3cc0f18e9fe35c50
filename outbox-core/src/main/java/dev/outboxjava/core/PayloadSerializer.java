package dev.outboxjava.core;

/**
 * Turns an application's event object into the bytes an {@link OutboxEvent} carries and the media type
 * that says what they are: JSON by the application's mapper, Avro or Protobuf by a schema registry's
 * serializer, or anything else. It runs at append, inside the caller's transaction, so a payload that
 * cannot be serialized fails the business transaction instead of becoming a dead letter later.
 *
 * <p>Give one to {@link OutboxEvent.Builder#payload(Object, PayloadSerializer)}; the adapters offer a
 * JSON one where a JSON library is present. Bytes are always possible too:
 * {@link OutboxEvent.Builder#payload(byte[])}. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface PayloadSerializer {

    /**
     * Serializes one event object.
     *
     * @param destination the Kafka topic or RabbitMQ exchange the event goes to (a schema registry's
     *                    default subject strategy names the subject after it)
     * @param value       the application's event object, never null
     * @return the payload and its media type
     * @throws RuntimeException when the value cannot be serialized; the builder reports it as an
     *         {@link InvalidEventException} on the field {@code payload}
     */
    SerializedPayload serialize(String destination, Object value);
}
