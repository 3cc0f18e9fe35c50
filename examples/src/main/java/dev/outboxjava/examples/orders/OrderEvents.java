package dev.outboxjava.examples.orders;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outboxjava.core.OutboxEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * Turns orders into outbox events and back: the one place that knows the {@code order.placed}
 * contract (type, source, key, JSON payload).
 */
public final class OrderEvents {

    /** The CloudEvents type of a placed order. */
    public static final String ORDER_PLACED = "order.placed";
    /** The CloudEvents source of this service's events. */
    public static final String SOURCE = "/orders-service";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String destination;

    /**
     * @param destination the Kafka topic or RabbitMQ exchange the events go to
     */
    public OrderEvents(String destination) {
        this.destination = Objects.requireNonNull(destination, "destination");
    }

    /** Where the events go. */
    public String destination() {
        return destination;
    }

    /** The {@code order.placed} event of {@code order}, keyed by the order id. */
    public OutboxEvent placed(OrderPlaced order) {
        // tag::build-event[]
        OutboxEvent event = OutboxEvent.builder()
                .type("order.placed") // CloudEvents type
                .source("/orders-service") // CloudEvents source
                .key(order.orderId().toString()) // same key = same partition, in order
                .destination(destination) // Kafka topic or RabbitMQ exchange
                .routingKey("order.placed") // RabbitMQ routing key (Kafka ignores it)
                .payload(toJson(order)) // bytes, serialized by you
                .build();
        // end::build-event[]
        return event;
    }

    /** Reads the payload of an {@code order.placed} event. */
    public static OrderPlaced readPlaced(byte[] payload) {
        try {
            JsonNode node = JSON.readTree(payload);
            return new OrderPlaced(
                    UUID.fromString(node.get("orderId").asText()),
                    node.get("customerId").asText(),
                    node.get("sku").asText(),
                    node.get("quantity").asInt(),
                    node.get("totalCents").asLong(),
                    Instant.parse(node.get("placedAt").asText()));
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("not an order.placed payload: " + e.getMessage(), e);
        }
    }

    static byte[] toJson(OrderPlaced order) {
        ObjectNode node = JSON.createObjectNode()
                .put("orderId", order.orderId().toString())
                .put("customerId", order.customerId())
                .put("sku", order.sku())
                .put("quantity", order.quantity())
                .put("totalCents", order.totalCents())
                .put("placedAt", order.placedAt().toString());
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
