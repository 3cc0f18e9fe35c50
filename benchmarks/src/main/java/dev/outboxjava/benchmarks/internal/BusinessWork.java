package dev.outboxjava.benchmarks.internal;

import dev.outboxjava.core.OutboxEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The producer side: a small business transaction (one order row) and the event it causes, with a
 * 1 KB payload from a pool of random ones.
 */
public final class BusinessWork {

    private static final byte[][] PAYLOADS = new byte[256][];

    static {
        Random random = new Random(42);
        for (int i = 0; i < PAYLOADS.length; i++) {
            PAYLOADS[i] = new byte[OutboxTables.PAYLOAD_BYTES];
            random.nextBytes(PAYLOADS[i]);
        }
    }

    private final String ordersTable;

    private BusinessWork(String ordersTable) {
        this.ordersTable = ordersTable;
    }

    /** Creates the orders table {@code <schema>.orders_<n>}. */
    public static BusinessWork create(Services services) {
        String table = services.newTableName("orders");
        services.execute("CREATE TABLE " + table + " (id uuid PRIMARY KEY, customer text NOT NULL, "
                + "total integer NOT NULL, created_at timestamptz NOT NULL)");
        return new BusinessWork(table);
    }

    public String table() {
        return ordersTable;
    }

    /** Inserts one order (the business transaction's own work). */
    public void insertOrder(Connection connection) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + ordersTable + " (id, customer, total, created_at) VALUES (?, ?, ?, ?)")) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            insert.setObject(1, UUID.randomUUID());
            insert.setString(2, "customer-" + random.nextInt(10_000));
            insert.setInt(3, random.nextInt(1, 1_000));
            insert.setTimestamp(4, Timestamp.from(Instant.now()));
            insert.executeUpdate();
        }
    }

    /** The event the order causes. */
    public static OutboxEvent event(String destination) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return OutboxEvent.builder()
                .clock(Clock.systemUTC())
                .type("order.placed")
                .source("/benchmarks")
                .key("key-" + random.nextInt(1_000))
                .destination(destination)
                .routingKey("bench")
                .contentType("application/octet-stream")
                .payload(PAYLOADS[random.nextInt(PAYLOADS.length)])
                .build();
    }
}
