package dev.outboxjava.examples.shipping;

import dev.outboxjava.examples.orders.OrderEvents;
import dev.outboxjava.examples.orders.OrderPlaced;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Applies {@code order.placed} events idempotently: creates one shipment per order, however often
 * the event arrives.
 *
 * <p>The outbox delivers at least once: a relay killed between the broker's acknowledgement and its
 * database mark publishes the event again, with the same id. So the handler records every event id
 * it applied in {@code processed_events}, in the SAME transaction as the effect: an id is recorded
 * if and only if its shipment committed, and a second delivery finds the id and does nothing.
 * (A reusable inbox is a separate concern; this is the minimal, correct form of it.)
 */
public final class ShipmentHandler {

    private final DataSource dataSource;
    private final Clock clock;

    public ShipmentHandler(DataSource dataSource, Clock clock) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Applies a batch in one transaction. Acknowledge the batch to the broker only after this returns:
     * a crash in between redelivers it, and the redelivery is recognised as duplicates.
     */
    public Applied apply(List<ReceivedEvent> batch) {
        if (batch.isEmpty()) {
            return new Applied(List.of(), List.of());
        }
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                // tag::idempotent-consumer[]
                Set<UUID> firstSeen = claim(connection, batch); // INSERT ... ON CONFLICT DO NOTHING RETURNING
                List<ReceivedEvent> applied = new ArrayList<>();
                List<ReceivedEvent> duplicates = new ArrayList<>();
                for (ReceivedEvent event : batch) {
                    // remove(): a second copy within the same batch is a duplicate too
                    (firstSeen.remove(event.id()) ? applied : duplicates).add(event);
                }
                createShipments(connection, applied); // the effect, in the same transaction
                connection.commit(); // ids and effects commit together
                // end::idempotent-consumer[]
                return new Applied(applied, duplicates);
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not apply " + batch.size() + " events: " + e.getMessage(), e);
        }
    }

    /** Records the ids; returns those that were not recorded before. */
    private Set<UUID> claim(Connection connection, List<ReceivedEvent> batch) throws SQLException {
        UUID[] ids = batch.stream().map(ReceivedEvent::id).toArray(UUID[]::new);
        Array idArray = connection.createArrayOf("uuid", ids);
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO processed_events (event_id, processed_at) SELECT id, ? FROM unnest(?::uuid[]) AS id "
                        + "ON CONFLICT (event_id) DO NOTHING RETURNING event_id")) {
            insert.setTimestamp(1, Timestamp.from(clock.instant()));
            insert.setArray(2, idArray);
            Set<UUID> inserted = new HashSet<>();
            try (ResultSet rows = insert.executeQuery()) {
                while (rows.next()) {
                    inserted.add(rows.getObject(1, UUID.class));
                }
            }
            return inserted;
        } finally {
            idArray.free();
        }
    }

    private void createShipments(Connection connection, List<ReceivedEvent> events) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO shipments (order_id, sku, quantity, created_at) VALUES (?, ?, ?, ?)")) {
            Timestamp now = Timestamp.from(clock.instant());
            int rows = 0;
            for (ReceivedEvent event : events) {
                if (!OrderEvents.ORDER_PLACED.equals(event.type())) {
                    continue; // other types: recorded as processed, nothing to do
                }
                OrderPlaced order = OrderEvents.readPlaced(event.payload());
                insert.setObject(1, order.orderId());
                insert.setString(2, order.sku());
                insert.setInt(3, order.quantity());
                insert.setTimestamp(4, now);
                insert.addBatch();
                rows++;
            }
            if (rows > 0) {
                insert.executeBatch();
            }
        }
    }
}
