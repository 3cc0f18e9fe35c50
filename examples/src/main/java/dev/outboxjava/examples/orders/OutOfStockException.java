package dev.outboxjava.examples.orders;

/**
 * The order could not be placed because not enough of its SKU is in stock. Thrown inside the
 * order's transaction, so the order row and its already appended {@code order.placed} event are
 * rolled back together: nothing is ever published for this order.
 */
public final class OutOfStockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public OutOfStockException(String sku, int quantity) {
        super("cannot reserve " + quantity + " of " + sku + ": not enough in stock; the order was not placed");
    }
}
