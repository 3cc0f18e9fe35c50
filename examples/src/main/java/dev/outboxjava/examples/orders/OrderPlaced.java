package dev.outboxjava.examples.orders;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * The fact an order was placed: the payload of an {@code order.placed} event and the order row.
 *
 * @param orderId    the new order's id (also the event's key, so one order's events stay in order)
 * @param customerId who ordered
 * @param sku        what was ordered
 * @param quantity   how many
 * @param totalCents what it costs in cents
 * @param placedAt   when the order service placed it
 */
public record OrderPlaced(
        UUID orderId, String customerId, String sku, int quantity, long totalCents, Instant placedAt) {

    public OrderPlaced {
        Objects.requireNonNull(orderId, "orderId");
        Objects.requireNonNull(customerId, "customerId");
        Objects.requireNonNull(sku, "sku");
        Objects.requireNonNull(placedAt, "placedAt");
    }

    /** A new order from a request, with a fresh id. */
    public static OrderPlaced from(PlaceOrder request, Instant placedAt) {
        return new OrderPlaced(
                UUID.randomUUID(),
                request.customerId(),
                request.sku(),
                request.quantity(),
                request.totalCents(),
                placedAt);
    }
}
