package dev.outboxjava.examples.shipping;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.examples.orders.OrderEvents;
import dev.outboxjava.examples.orders.OrderPlaced;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The shipment handler")
class ShipmentHandlerIT {

    private static PostgresFixture postgres;
    private HikariDataSource dataSource;
    private ShipmentHandler handler;

    @BeforeAll
    static void startDatabase() {
        postgres = PostgresFixture.start();
    }

    @AfterAll
    static void stopDatabase() {
        postgres.close();
    }

    @BeforeEach
    void createTables() throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(postgres.jdbcUrl());
        config.setUsername(postgres.user());
        config.setPassword(postgres.password());
        config.setSchema(postgres.newSchema());
        config.setMaximumPoolSize(2);
        dataSource = new HikariDataSource(config);
        try (Connection connection = dataSource.getConnection()) {
            ShippingTables.create(connection);
        }
        handler = new ShipmentHandler(dataSource, Clock.systemUTC());
    }

    @AfterEach
    void closePool() {
        dataSource.close();
    }

    @Test
    @DisplayName("applies a redelivered event once and reports the repeat as a duplicate")
    void redeliveryIsADuplicate() throws SQLException {
        ReceivedEvent first = orderPlaced();
        ReceivedEvent second = orderPlaced();

        Applied delivery = handler.apply(List.of(first, second));
        Applied redelivery = handler.apply(List.of(second, first));

        assertThat(delivery.applied()).containsExactly(first, second);
        assertThat(delivery.duplicates()).isEmpty();
        assertThat(redelivery.applied()).isEmpty();
        assertThat(redelivery.duplicates()).containsExactly(second, first);
        assertThat(count("SELECT count(*) FROM shipments")).isEqualTo(2);
        assertThat(count("SELECT count(*) FROM processed_events")).isEqualTo(2);
    }

    @Test
    @DisplayName("treats a second copy within one batch as a duplicate")
    void repeatWithinABatch() throws SQLException {
        ReceivedEvent event = orderPlaced();

        Applied applied = handler.apply(List.of(event, event));

        assertThat(applied.applied()).containsExactly(event);
        assertThat(applied.duplicates()).containsExactly(event);
        assertThat(count("SELECT count(*) FROM shipments")).isEqualTo(1);
    }

    @Test
    @DisplayName("records nothing when the batch fails, so the redelivery is applied")
    void failedBatchLeavesNoTrace() throws SQLException {
        ReceivedEvent good = orderPlaced();
        ReceivedEvent broken = new ReceivedEvent(
                UUID.randomUUID(),
                OrderEvents.ORDER_PLACED,
                java.util.Optional.empty(),
                "not json".getBytes(java.nio.charset.StandardCharsets.UTF_8));

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> handler.apply(List.of(good, broken)))
                .isInstanceOf(IllegalArgumentException.class);

        assertThat(count("SELECT count(*) FROM processed_events")).isZero();
        assertThat(handler.apply(List.of(good)).applied()).containsExactly(good);
    }

    private static ReceivedEvent orderPlaced() {
        OrderPlaced order = new OrderPlaced(UUID.randomUUID(), "customer-1", "sku-1", 1, 100, Instant.now());
        OutboxEvent event = new OrderEvents("orders").placed(order);
        return new ReceivedEvent(event.id(), event.type(), event.key(), event.payload());
    }

    private long count(String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
