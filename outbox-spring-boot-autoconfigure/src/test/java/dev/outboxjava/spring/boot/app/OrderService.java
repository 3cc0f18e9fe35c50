package dev.outboxjava.spring.boot.app;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.spring.boot.SpringOutbox;
import jakarta.persistence.EntityManager;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Writes an order with JPA, its line with JdbcTemplate and its event through the outbox, in one transaction. */
@Service
public class OrderService {

    private final EntityManager entities;
    private final JdbcTemplate jdbc;
    private final SpringOutbox outbox;
    private final String topic;

    public OrderService(
            EntityManager entities,
            JdbcTemplate jdbc,
            SpringOutbox outbox,
            @Value("${shop.topic:orders}") String topic) {
        this.entities = entities;
        this.jdbc = jdbc;
        this.outbox = outbox;
        this.topic = topic;
    }

    /** The order, its line and its event; all three commit together. */
    @Transactional
    public OutboxEvent placeOrder(UUID orderId) {
        entities.persist(new OrderEntity(orderId, "ada", 4200));
        entities.flush();
        jdbc.update("INSERT INTO order_lines (order_id, sku, quantity) VALUES (?, ?, ?)", orderId, "book", 1);
        return outbox.append(orderPlaced(orderId));
    }

    /** As {@link #placeOrder}, then fails: the order, the line and the event roll back together. */
    @Transactional
    public void placeOrderThenFail(UUID orderId) {
        placeOrder(orderId);
        throw new IllegalStateException("payment declined for " + orderId);
    }

    /** No transaction: the append must refuse. */
    public void appendWithoutTransaction(UUID orderId) {
        outbox.append(orderPlaced(orderId));
    }

    public OutboxEvent orderPlaced(UUID orderId) {
        return OutboxEvent.builder()
                .type("shop.order.placed")
                .source("/shop")
                .destination(topic)
                .key(orderId.toString())
                .contentType("application/json")
                .payload(("{\"orderId\":\"" + orderId + "\"}").getBytes(StandardCharsets.UTF_8))
                .build();
    }
}
