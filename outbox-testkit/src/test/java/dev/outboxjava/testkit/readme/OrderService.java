package dev.outboxjava.testkit.readme;

import dev.outboxjava.core.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.function.Consumer;

// tag::service[]
/** Your code: it hands the events it causes to the outbox (in production, inside its transaction). */
record OrderService(Consumer<List<OutboxEvent>> outbox, Clock clock) {

    void placeOrder(String orderId) {
        outbox.accept(List.of(OutboxEvent.builder()
                .clock(clock)
                .type("order.placed")
                .key(orderId)
                .destination("orders")
                .payload(("{\"orderId\":\"" + orderId + "\"}").getBytes(StandardCharsets.UTF_8))
                .build()));
    }
}
// end::service[]
