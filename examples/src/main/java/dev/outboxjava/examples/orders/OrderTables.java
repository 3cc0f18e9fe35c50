package dev.outboxjava.examples.orders;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * The order service's own tables: {@code orders} and {@code stock}. (The outbox table is created by
 * {@code outbox-postgres}; see {@code PostgresOutboxStore#ensureSchema}.)
 */
public final class OrderTables {

    /** DDL of the order service's tables, idempotent. */
    public static final String DDL = """
            CREATE TABLE IF NOT EXISTS orders (
                order_id    uuid        PRIMARY KEY,
                customer_id text        NOT NULL,
                sku         text        NOT NULL,
                quantity    integer     NOT NULL CHECK (quantity > 0),
                total_cents bigint      NOT NULL,
                placed_at   timestamptz NOT NULL
            );
            CREATE TABLE IF NOT EXISTS stock (
                sku       text    PRIMARY KEY,
                available integer NOT NULL CHECK (available >= 0)
            );
            """;

    private OrderTables() {}

    /** Creates the tables in the connection's current schema. */
    public static void create(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(DDL);
        }
    }

    /** Sets the stock of each SKU (inserting or replacing). */
    public static void stock(Connection connection, Map<String, Integer> availableBySku) throws SQLException {
        try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO stock (sku, available) VALUES (?, ?) "
                + "ON CONFLICT (sku) DO UPDATE SET available = EXCLUDED.available")) {
            for (Map.Entry<String, Integer> entry : availableBySku.entrySet()) {
                upsert.setString(1, entry.getKey());
                upsert.setInt(2, entry.getValue());
                upsert.addBatch();
            }
            upsert.executeBatch();
        }
    }
}
