package dev.outboxjava.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The order.placed contract")
class OrderEventsTest {

    private final OrderPlaced order = new OrderPlaced(
            UUID.fromString("0190a5e2-7c3b-7cde-8a11-2b3c4d5e6f70"),
            "customer-7",
            "sku-1",
            2,
            2500,
            Instant.parse("2026-11-21T10:15:30.123456Z"));

    @Test
    @DisplayName("is a pending event of type order.placed, keyed by the order id, to the configured destination")
    void placedEvent() {
        OutboxEvent event = new OrderEvents("orders").placed(order);

        assertThat(event.type()).isEqualTo(OrderEvents.ORDER_PLACED);
        assertThat(event.source()).isEqualTo(OrderEvents.SOURCE);
        assertThat(event.key()).contains(order.orderId().toString());
        assertThat(event.destination()).isEqualTo("orders");
        assertThat(event.routingKey()).isEqualTo("order.placed");
        assertThat(event.status()).isEqualTo(EventStatus.PENDING);
        assertThat(new String(event.payload(), StandardCharsets.UTF_8)).contains("\"totalCents\":2500");
    }

    @Test
    @DisplayName("round-trips the order through its JSON payload, microseconds included")
    void payloadRoundTrip() {
        OutboxEvent event = new OrderEvents("orders").placed(order);

        assertThat(OrderEvents.readPlaced(event.payload())).isEqualTo(order);
    }

    @Test
    @DisplayName("refuses a payload that is not an order.placed, saying so")
    void refusesForeignPayload() {
        assertThatThrownBy(() -> OrderEvents.readPlaced("{\"hello\":1}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("not an order.placed payload");
    }

    @Test
    @DisplayName("totals quantity times unit price")
    void total() {
        assertThat(new PlaceOrder("c", "s", 3, 1999).totalCents()).isEqualTo(5997);
        assertThatThrownBy(() -> new PlaceOrder("c", "s", 0, 1)).hasMessageContaining("quantity");
    }
}
