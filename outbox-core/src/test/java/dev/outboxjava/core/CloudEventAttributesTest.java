package dev.outboxjava.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Whether an event can be sent as a CloudEvent")
class CloudEventAttributesTest {

    private static OutboxEvent.Restorer stored() {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        return OutboxEvent.restore()
                .id(UUID.randomUUID())
                .type("order.placed")
                .source("/orders-service")
                .destination("orders")
                .routingKey("orders")
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .nextAttemptAt(now)
                .createdAt(now);
    }

    @Test
    @DisplayName("an event the builder made has no problem")
    void builtEvent() {
        OutboxEvent event = OutboxEvent.builder()
                .type("order.placed")
                .source("urn:example:orders")
                .destination("orders")
                .dataSchema("https://schemas.example.com/order/1")
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
        assertThat(CloudEventAttributes.problem(event)).isEmpty();
    }

    @Test
    @DisplayName("a stored source that is not a URI reference is named, with the value")
    void source() {
        assertThat(CloudEventAttributes.problem(stored().source("not a uri").build()))
                .hasValueSatisfying(problem -> assertThat(problem)
                        .startsWith("the event's source 'not a uri' is not a URI reference")
                        .endsWith("(not retryable)"));
    }

    @Test
    @DisplayName("a stored dataschema that is not an absolute URI is named, with the value")
    void dataSchema() {
        assertThat(CloudEventAttributes.problem(
                        stored().dataSchema(Optional.of("schemas/v1.json")).build()))
                .hasValueSatisfying(problem -> assertThat(problem)
                        .startsWith("the event's dataschema 'schemas/v1.json' is not an absolute URI"));
    }

    @Test
    @DisplayName("a stored header named like an envelope attribute is named first")
    void reservedHeader() {
        assertThat(CloudEventAttributes.problem(stored().source("not a uri")
                        .headers(Map.of("ce_id", "forged"))
                        .build()))
                .hasValueSatisfying(problem -> assertThat(problem).contains("'ce_id'"));
    }
}
