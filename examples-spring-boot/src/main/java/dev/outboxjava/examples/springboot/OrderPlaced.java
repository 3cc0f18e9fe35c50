package dev.outboxjava.examples.springboot;

import dev.outboxjava.spring.boot.OutboxRoute;
import java.util.UUID;

/**
 * The event of a placed order, the contract with the consumers (not the table's row). Published with
 * Spring's {@code ApplicationEventPublisher}, it goes to the outbox in the publishing transaction and
 * reaches Kafka as this record's JSON, keyed by the order id.
 */
// tag::order-placed[]
@OutboxRoute(destination = OrderService.TOPIC, key = "orderId", type = "shop.order.placed")
public record OrderPlaced(UUID orderId, String customer, String sku, int quantity) {}
// end::order-placed[]
