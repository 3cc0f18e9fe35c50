package dev.outboxjava.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.Guice;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.examples.orders.OrdersModule.Persistence;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresSchema;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.testkit.EventFilter;
import dev.outboxjava.testkit.OutboxAssertions;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import dev.outboxjava.testkit.fixture.BrokerInbox;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.worker.KafkaPublisherModule;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a team adopting the library writes: its real order service, the real worker, a real
 * PostgreSQL and Kafka from the testkit's fixtures, and the testkit's assertions on what arrives at
 * the broker. Runs for both implementations of the order service (JDBC and jOOQ).
 */
@DisplayName("Placing an order")
class PlacingAnOrderIT {

    private static PostgresFixture postgres;
    private static KafkaFixture kafka;

    private HikariDataSource dataSource;
    private String topic;
    private OutboxWorker worker;
    private BrokerInbox inbox;

    @BeforeAll
    static void startServices() {
        postgres = PostgresFixture.start();
        kafka = KafkaFixture.start();
    }

    @AfterAll
    static void stopServices() {
        kafka.close();
        postgres.close();
    }

    @BeforeEach
    void startWorker() throws SQLException {
        String schema = postgres.newSchema();
        dataSource = dataSourceIn(schema);
        try (Connection connection = dataSource.getConnection()) {
            OrderTables.create(connection);
            OrderTables.stock(connection, Map.of("sku-1", 1_000, "sku-sold-out", 0));
        }
        PostgresSchema.apply(dataSource, outboxConfig(schema));
        topic = kafka.createTopic("orders", 1);
        worker = Guice.createInjector(
                        new OutboxWorkerModule(OutboxWorkerConfig.builder()
                                .pollInterval(Duration.ofMillis(100))
                                .build()),
                        new PostgresStoreModule(
                                dataSource,
                                PostgresOutboxConfig.builder()
                                        .tableName(schema + ".outbox_events")
                                        .completionMode(CompletionMode.KEEP_SENT)
                                        .wakeUpMode(WakeUpMode.NONE)
                                        .build()),
                        new KafkaPublisherModule(KafkaPublisherConfig.builder()
                                .bootstrapServers(kafka.bootstrapServers())
                                .build()))
                .getInstance(OutboxWorker.class);
        worker.start();
        inbox = BrokerInbox.kafka(kafka.consumerProperties(), topic);
    }

    @AfterEach
    void stopWorker() {
        inbox.close();
        worker.close();
        kafka.deleteTopic(topic);
        dataSource.close();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Persistence.class)
    @DisplayName("publishes order.placed, keyed by the order id, with the order in the payload")
    void publishesOrderPlaced(Persistence persistence) {
        OrderService orders = orderService(persistence);

        // tag::testkit-await[]
        OrderPlaced order = orders.place(new PlaceOrder("customer-7", "sku-1", 2, 1250));

        ReceivedMessage message = OutboxAssertions.awaitReceived(
                inbox,
                EventFilter.ofType("order.placed")
                        .withKey(order.orderId().toString())
                        .withPayloadContaining("\"totalCents\":2500"),
                Duration.ofSeconds(30));
        // end::testkit-await[]

        assertThat(message.source()).isEqualTo(OrderEvents.SOURCE);
        assertThat(OrderEvents.readPlaced(message.payload())).isEqualTo(order);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Persistence.class)
    @DisplayName("that is rolled back (out of stock) publishes nothing")
    void rolledBackOrderPublishesNothing(Persistence persistence) {
        OrderService orders = orderService(persistence);

        // tag::testkit-nothing[]
        assertThatThrownBy(() -> orders.place(new PlaceOrder("customer-rolled-back", "sku-sold-out", 1, 999)))
                .isInstanceOf(OutOfStockException.class);
        OrderPlaced later = orders.place(new PlaceOrder("customer-8", "sku-1", 1, 999));

        // Once the later order's event has arrived, the relay has passed the rolled-back one's place.
        OutboxAssertions.awaitReceived(inbox, EventFilter.ofKey(later.orderId().toString()), Duration.ofSeconds(30));
        OutboxAssertions.assertNothingReceived(
                inbox,
                EventFilter.ofType("order.placed").withPayloadContaining("customer-rolled-back"),
                Duration.ofSeconds(1));
        // end::testkit-nothing[]
    }

    private OrderService orderService(Persistence persistence) {
        return Guice.createInjector(new OrdersModule(dataSource, outboxConfig(currentSchema()), topic, persistence))
                .getInstance(OrderService.class);
    }

    private String currentSchema() {
        return dataSource.getSchema();
    }

    private static PostgresOutboxConfig outboxConfig(String schema) {
        return PostgresOutboxConfig.builder()
                .tableName(schema + ".outbox_events")
                .build();
    }

    private static HikariDataSource dataSourceIn(String schema) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(postgres.jdbcUrl());
        config.setUsername(postgres.user());
        config.setPassword(postgres.password());
        config.setSchema(schema);
        config.setMaximumPoolSize(4);
        return new HikariDataSource(config);
    }
}
