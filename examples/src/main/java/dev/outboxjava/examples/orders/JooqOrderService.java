package dev.outboxjava.examples.orders;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.outboxjava.postgres.OutboxNotifier;
import dev.outboxjava.postgres.OutboxWriter;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The order service on jOOQ: {@code dsl.transaction(...)} owns the transaction and the event is
 * appended with {@link OutboxWriter#append(org.jooq.Configuration, List)} on the transaction's
 * configuration; after the commit the {@link OutboxNotifier} wakes the relays.
 */
public final class JooqOrderService implements OrderService {

    private static final Table<Record> ORDERS = table(name("orders"));
    private static final Field<UUID> ORDER_ID = field(name("order_id"), SQLDataType.UUID);
    private static final Field<String> CUSTOMER_ID = field(name("customer_id"), SQLDataType.CLOB);
    private static final Field<String> SKU = field(name("sku"), SQLDataType.CLOB);
    private static final Field<Integer> QUANTITY = field(name("quantity"), SQLDataType.INTEGER);
    private static final Field<Long> TOTAL_CENTS = field(name("total_cents"), SQLDataType.BIGINT);
    private static final Field<Instant> PLACED_AT = field(name("placed_at"), SQLDataType.INSTANT);
    private static final Table<Record> STOCK = table(name("stock"));
    private static final Field<Integer> AVAILABLE = field(name("available"), SQLDataType.INTEGER);

    private final DSLContext dsl;
    private final OutboxWriter outbox;
    private final OutboxNotifier notifier;
    private final OrderEvents events;
    private final Clock clock;

    @Inject
    public JooqOrderService(
            DSLContext dsl, OutboxWriter outbox, OutboxNotifier notifier, OrderEvents events, Clock clock) {
        this.dsl = Objects.requireNonNull(dsl, "dsl");
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.notifier = Objects.requireNonNull(notifier, "notifier");
        this.events = Objects.requireNonNull(events, "events");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public OrderPlaced place(PlaceOrder request) {
        OrderPlaced order = OrderPlaced.from(request, clock.instant());
        // tag::append-jooq[]
        dsl.transaction(transaction -> {
            DSL.using(transaction)
                    .insertInto(ORDERS, ORDER_ID, CUSTOMER_ID, SKU, QUANTITY, TOTAL_CENTS, PLACED_AT)
                    .values(
                            order.orderId(),
                            order.customerId(),
                            order.sku(),
                            order.quantity(),
                            order.totalCents(),
                            order.placedAt())
                    .execute(); // your domain write
            outbox.append(transaction, List.of(events.placed(order))); // the event, same transaction
            reserveStock(DSL.using(transaction), order); // may throw: both roll back
        });
        notifier.signal(); // committed: wake the relay
        // end::append-jooq[]
        return order;
    }

    // After the append on purpose, as in JdbcOrderService: a rejection proves the rollback.
    private static void reserveStock(DSLContext tx, OrderPlaced order) {
        int reserved = tx.update(STOCK)
                .set(AVAILABLE, AVAILABLE.minus(order.quantity()))
                .where(SKU.eq(order.sku()).and(AVAILABLE.ge(order.quantity())))
                .execute();
        if (reserved == 0) {
            throw new OutOfStockException(order.sku(), order.quantity());
        }
    }
}
