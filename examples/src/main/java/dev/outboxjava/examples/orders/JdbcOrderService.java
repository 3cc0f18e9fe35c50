package dev.outboxjava.examples.orders;

import dev.outboxjava.postgres.OutboxNotifier;
import dev.outboxjava.postgres.OutboxWriter;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The order service on plain JDBC: it owns its transaction and appends the event with
 * {@link OutboxWriter#append(Connection, List)} on the same connection; after the commit the
 * {@link OutboxNotifier} wakes the relays.
 */
public final class JdbcOrderService implements OrderService {

    private final DataSource dataSource;
    private final OutboxWriter outbox;
    private final OutboxNotifier notifier;
    private final OrderEvents events;
    private final Clock clock;

    @Inject
    public JdbcOrderService(
            DataSource dataSource, OutboxWriter outbox, OutboxNotifier notifier, OrderEvents events, Clock clock) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.notifier = Objects.requireNonNull(notifier, "notifier");
        this.events = Objects.requireNonNull(events, "events");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public OrderPlaced place(PlaceOrder request) {
        OrderPlaced order = OrderPlaced.from(request, clock.instant());
        try (Connection connection = dataSource.getConnection()) {
            // tag::append-jdbc[]
            connection.setAutoCommit(false);
            try {
                insertOrder(connection, order); // your domain write
                outbox.append(connection, List.of(events.placed(order))); // the event, same transaction
                reserveStock(connection, order); // may throw: both roll back
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                connection.rollback(); // no order, no event
                throw e;
            }
            notifier.signal(); // committed: wake the relay
            // end::append-jdbc[]
            return order;
        } catch (SQLException e) {
            throw new IllegalStateException("could not place order " + order.orderId() + ": " + e.getMessage(), e);
        }
    }

    private static void insertOrder(Connection connection, OrderPlaced order) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO orders (order_id, customer_id, sku, quantity, total_cents, placed_at) "
                        + "VALUES (?, ?, ?, ?, ?, ?)")) {
            insert.setObject(1, order.orderId());
            insert.setString(2, order.customerId());
            insert.setString(3, order.sku());
            insert.setInt(4, order.quantity());
            insert.setLong(5, order.totalCents());
            insert.setTimestamp(6, Timestamp.from(order.placedAt()));
            insert.executeUpdate();
        }
    }

    // Runs after the append on purpose: a rejected order then proves that the rollback takes an
    // already appended event with it. In any order, one transaction writes both or neither.
    private static void reserveStock(Connection connection, OrderPlaced order) throws SQLException {
        try (PreparedStatement reserve = connection.prepareStatement(
                "UPDATE stock SET available = available - ? WHERE sku = ? AND available >= ?")) {
            reserve.setInt(1, order.quantity());
            reserve.setString(2, order.sku());
            reserve.setInt(3, order.quantity());
            if (reserve.executeUpdate() == 0) {
                throw new OutOfStockException(order.sku(), order.quantity());
            }
        }
    }
}
