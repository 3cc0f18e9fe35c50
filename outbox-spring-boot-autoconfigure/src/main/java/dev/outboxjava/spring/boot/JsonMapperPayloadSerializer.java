package dev.outboxjava.spring.boot;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.PayloadSerializer;
import dev.outboxjava.core.SerializedPayload;
import java.util.Objects;
import tools.jackson.databind.json.JsonMapper;

/**
 * Event payloads as JSON ({@value OutboxEvent#DEFAULT_CONTENT_TYPE}) by the application's Jackson 3
 * {@link JsonMapper}: the one Spring Boot configures ({@code spring.jackson.*}, the application's
 * modules), so an event reads like the rest of the application's JSON. The starter's default
 * {@link PayloadSerializer}; a {@code PayloadSerializer} bean of the application's own replaces it.
 */
public final class JsonMapperPayloadSerializer implements PayloadSerializer {

    private final JsonMapper mapper;

    public JsonMapperPayloadSerializer(JsonMapper mapper) {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
    }

    @Override
    public SerializedPayload serialize(String destination, Object value) {
        return new SerializedPayload(mapper.writeValueAsBytes(value), OutboxEvent.DEFAULT_CONTENT_TYPE);
    }
}
