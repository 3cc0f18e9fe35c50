package dev.outboxjava.examples.springboot;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.spring.boot.SpringOutbox;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order row and its event commit together, or neither does. */
@Service
public class OrderService {

    /** The Kafka topic the events go to. */
    public static final String TOPIC = "orders";

    private final JdbcTemplate jdbc;
    private final SpringOutbox outbox;

    public OrderService(JdbcTemplate jdbc, SpringOutbox outbox) {
        this.jdbc = jdbc;
        this.outbox = outbox;
    }

    // tag::place-order[]
    @Transactional
    public UUID placeOrder(String customer, String sku, int quantity) {
        UUID orderId = UUID.randomUUID();
        jdbc.update(
                "INSERT INTO orders (id, customer, sku, quantity, placed_at) VALUES (?, ?, ?, ?, ?)",
                orderId,
                customer,
                sku,
                quantity,
                Timestamp.from(Instant.now()));
        outbox.append(OutboxEvent.builder()
                .type("shop.order.placed")
                .source("/orders")
                .destination(TOPIC)
                .key(orderId.toString())
                .contentType("application/json")
                .payload(("{\"orderId\":\"" + orderId + "\",\"sku\":\"" + sku + "\",\"quantity\":" + quantity + "}")
                        .getBytes(StandardCharsets.UTF_8))
                .build());
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive"); // the rollback takes the event too
        }
        return orderId;
    }
    // end::place-order[]
}
