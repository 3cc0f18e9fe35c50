package dev.outboxjava.examples.shipping;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The shipping service's tables: {@code processed_events}, the ids of the events it has applied
 * (its deduplication record), and {@code shipments}, its own state.
 */
public final class ShippingTables {

    /** DDL of the shipping service's tables, idempotent. */
    public static final String DDL = """
            CREATE TABLE IF NOT EXISTS processed_events (
                event_id     uuid        PRIMARY KEY,
                processed_at timestamptz NOT NULL
            );
            CREATE TABLE IF NOT EXISTS shipments (
                order_id   uuid        PRIMARY KEY,
                sku        text        NOT NULL,
                quantity   integer     NOT NULL,
                created_at timestamptz NOT NULL
            );
            """;

    private ShippingTables() {}

    /** Creates the tables in the connection's current schema. */
    public static void create(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(DDL);
        }
    }
}
