package dev.outboxjava.examples.orders;

/** Places orders. Every placed order causes exactly one {@code order.placed} event, committed with it. */
public interface OrderService {

    /**
     * Places an order: inserts the order row, appends its {@code order.placed} event and reserves the
     * stock, all in one transaction.
     *
     * @return the placed order, with its new id
     * @throws OutOfStockException when the stock is short; nothing was written and nothing will be published
     */
    OrderPlaced place(PlaceOrder order);
}
