package dev.outboxjava.examples.consuming;

import dev.outboxjava.examples.orders.OrderPlaced;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The consuming service's own data: a loyalty balance per customer, credited one point per whole
 * currency unit of each placed order. Crediting is NOT idempotent on purpose — an order credited
 * twice shows as twice the points — so only the inbox stands between a redelivered event and a
 * wrong balance.
 */
public final class LoyaltyPoints {

    private static final Pattern TABLE_NAME = Pattern.compile("[a-z_][a-z0-9_]*(\\.[a-z_][a-z0-9_]*)?");

    private final String table;

    /**
     * @param table the balance table, optionally schema-qualified, e.g. {@code loyalty.points}
     */
    public LoyaltyPoints(String table) {
        if (!TABLE_NAME.matcher(Objects.requireNonNull(table, "table")).matches()) {
            throw new IllegalArgumentException("loyalty points table name '" + table
                    + "' must be [schema.]name in lower case letters, digits and underscores");
        }
        this.table = table;
    }

    /** The balance table's name. */
    public String table() {
        return table;
    }

    /** Creates the balance table if it is missing. */
    public void createTable(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS " + table + " (customer_id text PRIMARY KEY, "
                    + "points bigint NOT NULL, orders integer NOT NULL)");
        }
    }

    /**
     * Credits the order's points to its customer through {@code connection}, in the caller's
     * transaction: the inbox's, so the credit and the record that the event was processed commit together.
     */
    public void credit(Connection connection, OrderPlaced order) throws SQLException {
        try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO " + table
                + " AS balance (customer_id, points, orders) VALUES (?, ?, 1) ON CONFLICT (customer_id) "
                + "DO UPDATE SET points = balance.points + excluded.points, orders = balance.orders + 1")) {
            upsert.setString(1, order.customerId());
            upsert.setLong(2, pointsFor(order));
            upsert.executeUpdate();
        }
    }

    /** The points an order earns: one per whole currency unit. */
    public static long pointsFor(OrderPlaced order) {
        return order.totalCents() / 100;
    }

    /** A customer's balance: {points, orders credited}; {0, 0} for a customer never credited. */
    public long[] balance(DataSource dataSource, String customerId) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select =
                        connection.prepareStatement("SELECT points, orders FROM " + table + " WHERE customer_id = ?")) {
            select.setString(1, customerId);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? new long[] {row.getLong(1), row.getLong(2)} : new long[] {0, 0};
            }
        }
    }
}
