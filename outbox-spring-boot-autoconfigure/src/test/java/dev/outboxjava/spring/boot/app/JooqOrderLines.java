package dev.outboxjava.spring.boot.app;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.spring.boot.SpringOutbox;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** jOOQ's Spring integration in the same transaction as JPA and the outbox. */
@Service
public class JooqOrderLines {

    private final OrderService orders;
    private final DSLContext jooq;
    private final SpringOutbox outbox;

    public JooqOrderLines(OrderService orders, DSLContext jooq, SpringOutbox outbox) {
        this.orders = orders;
        this.jooq = jooq;
        this.outbox = outbox;
    }

    /** The order (JPA and JdbcTemplate), a second line written with jOOQ and a second event; {@code fail} rolls all back. */
    @Transactional
    public OutboxEvent addLineWithJooq(UUID orderId, boolean fail) {
        orders.placeOrder(orderId);
        jooq.insertInto(DSL.table("order_lines"), DSL.field("order_id"), DSL.field("sku"), DSL.field("quantity"))
                .values(orderId, "pen", 2)
                .execute();
        OutboxEvent event = outbox.append(orders.orderPlaced(orderId));
        if (fail) {
            throw new IllegalStateException("jOOQ order " + orderId + " declined");
        }
        return event;
    }
}
