package dev.outboxjava.examples.orders;

import java.util.Objects;

/**
 * A customer's request to buy {@code quantity} of {@code sku}.
 *
 * @param customerId     who orders
 * @param sku            what is ordered
 * @param quantity       how many, at least 1
 * @param unitPriceCents price of one item in cents, not negative
 */
public record PlaceOrder(String customerId, String sku, int quantity, long unitPriceCents) {

    public PlaceOrder {
        Objects.requireNonNull(customerId, "customerId");
        Objects.requireNonNull(sku, "sku");
        if (quantity < 1) {
            throw new IllegalArgumentException("quantity must be at least 1, was " + quantity);
        }
        if (unitPriceCents < 0) {
            throw new IllegalArgumentException("unitPriceCents must not be negative, was " + unitPriceCents);
        }
    }

    /** Quantity times unit price. */
    public long totalCents() {
        return Math.multiplyExact(unitPriceCents, (long) quantity);
    }
}
