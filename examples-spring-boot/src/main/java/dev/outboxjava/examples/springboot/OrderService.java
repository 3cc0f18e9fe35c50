package dev.outboxjava.examples.springboot;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places orders: the order row and its {@link OrderPlaced} event commit together, or neither does. The
 * event is published with Spring's {@link ApplicationEventPublisher}; its {@code @OutboxRoute} puts it in
 * the outbox, in this transaction.
 */
@Service
public class OrderService {

    /** The Kafka topic the events go to. */
    public static final String TOPIC = "orders";

    private final JdbcTemplate jdbc;
    private final ApplicationEventPublisher events;

    public OrderService(JdbcTemplate jdbc, ApplicationEventPublisher events) {
        this.jdbc = jdbc;
        this.events = events;
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
        events.publishEvent(new OrderPlaced(orderId, customer, sku, quantity)); // into the outbox, in this transaction
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive"); // the rollback takes the event too
        }
        return orderId;
    }
    // end::place-order[]
}
