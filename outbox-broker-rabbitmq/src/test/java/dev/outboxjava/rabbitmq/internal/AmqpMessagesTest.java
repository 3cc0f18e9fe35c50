package dev.outboxjava.rabbitmq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import dev.outboxjava.core.CloudEventAttributes;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.time.ManualClock;
import java.util.Date;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class AmqpMessagesTest {

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    @Test
    @DisplayName("an event maps to persistent properties with the CloudEvents attributes as cloudEvents: headers")
    void mapsEvent() {
        OutboxEvent event = OutboxEvent.builder()
                .type("order.placed")
                .source("/orders")
                .key("order-1")
                .destination("orders")
                .routingKey("order.placed")
                .contentType("application/json")
                .header("tenant", "acme")
                .payload(new byte[] {1})
                .clock(clock)
                .build();

        AMQP.BasicProperties properties = AmqpMessages.propertiesOf(event);

        assertThat(properties.getDeliveryMode()).isEqualTo(2);
        assertThat(properties.getMessageId()).isEqualTo(event.id().toString());
        assertThat(properties.getContentType()).isEqualTo("application/json");
        assertThat(properties.getType()).isEqualTo("order.placed");
        assertThat(properties.getTimestamp()).isEqualTo(Date.from(event.createdAt()));
        assertThat(properties.getHeaders())
                .containsEntry("cloudEvents:specversion", "1.0")
                .containsEntry("cloudEvents:id", event.id().toString())
                .containsEntry("cloudEvents:source", "/orders")
                .containsEntry("cloudEvents:type", "order.placed")
                .containsEntry(
                        "cloudEvents:time", CloudEventAttributes.of(event).get(CloudEventAttributes.TIME))
                .containsEntry("cloudEvents:partitionkey", "order-1")
                .containsEntry("tenant", "acme");
    }

    @Test
    @DisplayName(
            "a stored event whose own header is named like a CloudEvents attribute cannot be encoded (not dropped, not overwritten)")
    void spoofedAttributesRefused() {
        OutboxEvent stored = OutboxEvent.restore()
                .id(java.util.UUID.randomUUID())
                .type("order.placed")
                .source("/orders")
                .destination("orders")
                .nextAttemptAt(clock.instant())
                .createdAt(clock.instant())
                .headers(java.util.Map.of("ce_source", "forged", "tenant", "acme"))
                .build();

        assertThat(AmqpMessages.encodingProblem(stored))
                .get()
                .asString()
                .contains("'ce_source'")
                .contains("reserved");
    }

    @Test
    @DisplayName(
            "the cloudEvents: headers are exactly the core's CloudEvents attributes of the event, content type as the property")
    void headersAreTheCoreAttributes() {
        OutboxEvent event = OutboxEvent.restore()
                .id(java.util.UUID.randomUUID())
                .type("order.placed")
                .source("/orders")
                .destination("orders")
                .key(java.util.Optional.of("order-7"))
                .subject(java.util.Optional.of("order/7"))
                .dataSchema(java.util.Optional.of("https://schemas.example/order/1"))
                .contentType("application/json")
                .headers(java.util.Map.of("tenant", "acme"))
                .nextAttemptAt(clock.instant())
                .createdAt(clock.instant().plusNanos(120_000_000))
                .build();

        AMQP.BasicProperties properties = AmqpMessages.propertiesOf(event);

        java.util.Map<String, Object> expected = new java.util.LinkedHashMap<>();
        CloudEventAttributes.of(event).forEach((name, value) -> {
            if (!name.equals(CloudEventAttributes.DATACONTENTTYPE)) {
                expected.put("cloudEvents:" + name, value);
            }
        });
        expected.put("tenant", "acme");
        assertThat(properties.getHeaders()).containsExactlyInAnyOrderEntriesOf(expected);
        assertThat(properties.getContentType()).isEqualTo("application/json");
        assertThat(AmqpMessages.encodingProblem(event)).isEmpty();
    }

    @Test
    @DisplayName("an event without a key has no partition key header")
    void noKey() {
        OutboxEvent event = OutboxEvent.builder()
                .type("t")
                .destination("d")
                .payload(new byte[0])
                .clock(clock)
                .build();
        assertThat(AmqpMessages.propertiesOf(event).getHeaders()).doesNotContainKey("cloudEvents:partitionkey");
    }

    private OutboxEvent stored(String type, String destination) {
        return OutboxEvent.restore()
                .id(java.util.UUID.randomUUID())
                .type(type)
                .destination(destination)
                .nextAttemptAt(clock.instant())
                .createdAt(clock.instant())
                .build();
    }

    @Test
    @DisplayName("names over 255 UTF-8 bytes are reported, naming the field; ASCII names up to 255 pass")
    void encodingProblem() {
        OutboxEvent fine = OutboxEvent.builder()
                .type("t".repeat(255))
                .destination("d")
                .payload(new byte[0])
                .clock(clock)
                .build();
        // rows inserted by other means than the builder, which refuses names over 255 UTF-8 bytes
        OutboxEvent wide = stored("t", "\u00e9".repeat(200));
        OutboxEvent threeByteChars = OutboxEvent.builder()
                .type("\u20ac".repeat(85))
                .destination("d")
                .payload(new byte[0])
                .clock(clock)
                .build();
        OutboxEvent oneCharTooMany = stored("\u20ac".repeat(86), "d");

        assertThat(AmqpMessages.encodingProblem(fine)).isEmpty();
        assertThat(AmqpMessages.encodingProblem(threeByteChars)).isEmpty();
        assertThat(AmqpMessages.encodingProblem(oneCharTooMany))
                .hasValueSatisfying(
                        reason -> assertThat(reason).contains("type").contains("258 bytes"));
        assertThat(AmqpMessages.encodingProblem(wide))
                .hasValueSatisfying(
                        reason -> assertThat(reason).contains("destination").contains("400 bytes"));
    }
}
