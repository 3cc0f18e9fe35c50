package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.outboxjava.core.InvalidEventException;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.SerializedPayload;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The writer's payload serializer")
class JsonPayloadSerializerTest {

    record OrderPlaced(String orderId, String sku, int quantity, List<String> tags) {}

    @Test
    @DisplayName(
            "by default, an event built from the writer carries its payload object as JSON, content type application/json")
    void jsonByDefault() {
        OutboxWriter writer = OutboxWriter.create(PostgresOutboxConfig.ofDefaults());

        OutboxEvent event = writer.event(new OrderPlaced("42", "book", 2, List.of("gift")))
                .type("shop.order.placed")
                .destination("orders")
                .build();

        assertThat(new String(event.payload(), StandardCharsets.UTF_8))
                .isEqualTo("{\"orderId\":\"42\",\"sku\":\"book\",\"quantity\":2,\"tags\":[\"gift\"]}");
        assertThat(event.contentType()).isEqualTo("application/json");
    }

    @Test
    @DisplayName("given the application's mapper, its naming is the payload's")
    void applicationMapper() {
        ObjectMapper snake = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
        OutboxWriter writer = OutboxWriter.create(PostgresOutboxConfig.ofDefaults(), JsonPayloadSerializer.of(snake));

        OutboxEvent event = writer.event(new OrderPlaced("42", "book", 2, List.of()))
                .type("shop.order.placed")
                .destination("orders")
                .build();

        assertThat(new String(event.payload(), StandardCharsets.UTF_8)).contains("\"order_id\":\"42\"");
    }

    @Test
    @DisplayName("given a serializer of another format, the writer's events carry its bytes and media type")
    void otherFormat() {
        OutboxWriter writer = OutboxWriter.create(
                PostgresOutboxConfig.ofDefaults(),
                (destination, value) -> new SerializedPayload(new byte[] {0, 0, 0, 0, 7}, "application/avro"));

        OutboxEvent event =
                writer.event("anything").type("t").destination("orders").build();

        assertThat(event.payload()).containsExactly(0, 0, 0, 0, 7);
        assertThat(event.contentType()).isEqualTo("application/avro");
    }

    @Test
    @DisplayName("an object Jackson cannot write is an invalid payload at build, before anything reaches the database")
    void unserializable() {
        OutboxWriter writer = OutboxWriter.create(PostgresOutboxConfig.ofDefaults());

        assertThatThrownBy(writer.event(new Object()).type("t").destination("orders")::build)
                .isInstanceOfSatisfying(
                        InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("payload"))
                .hasMessageContaining("java.lang.Object");
    }
}
