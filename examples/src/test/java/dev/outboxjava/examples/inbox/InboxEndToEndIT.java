package dev.outboxjava.examples.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.Sweeper;
import dev.outboxjava.core.relay.SweeperConfig;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.kafka.inbox.KafkaInbox;
import dev.outboxjava.kafka.inbox.KafkaInboxConsumer;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.inbox.PostgresInbox;
import dev.outboxjava.postgres.inbox.PostgresInboxConfig;
import dev.outboxjava.rabbitmq.RabbitMqPublisher;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.rabbitmq.inbox.RabbitMqInbox;
import dev.outboxjava.rabbitmq.inbox.RabbitMqInbox.DeliveryOutcome;
import dev.outboxjava.testkit.FaultyPublisher;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole way from an order's transaction to a shipment, with the failure the inbox exists for:
 * the relay is killed between the broker's acknowledgement and its mark (so the sweeper reclaims
 * the batch and it is published again), and a few events are acknowledged and then reported as
 * failed (published a third time). The consumer, running every message through the PostgreSQL
 * inbox, creates exactly one shipment per distinct event although it receives 45 messages for 20
 * events.
 */
@DisplayName("Inbox end to end: a relay killed between publish and mark")
class InboxEndToEndIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final int EVENTS = 20;
    private static final int ACKNOWLEDGED_THEN_FAILED = 5;
    /** Every event twice (before and after the kill), plus the acknowledged-then-failed ones once more. */
    private static final int DELIVERIES = 2 * EVENTS + ACKNOWLEDGED_THEN_FAILED;

    private static final String CONSUMER = "shipping.order-placed";
    private static final AtomicInteger tables = new AtomicInteger();

    private static KafkaFixture kafka;
    private static RabbitMqFixture rabbit;

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private PostgresOutboxStore store;
    private PostgresInbox inbox;
    private String shipments;

    @BeforeAll
    static void startBrokers() {
        kafka = KafkaFixture.start();
        rabbit = RabbitMqFixture.start();
    }

    @AfterAll
    static void stopBrokers() {
        if (kafka != null) {
            kafka.close();
        }
        if (rabbit != null) {
            rabbit.close();
        }
    }

    @BeforeEach
    void createTables() {
        int n = tables.incrementAndGet();
        store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .tableName(postgres.schema() + ".outbox_" + n)
                        .build());
        store.ensureSchema();
        inbox = PostgresInbox.create(
                postgres.dataSource(),
                PostgresInboxConfig.builder()
                        .tableName(postgres.schema() + ".inbox_" + n)
                        .build(),
                clock);
        inbox.ensureSchema();
        shipments = postgres.schema() + ".shipments_" + n;
        // Deliberately no unique constraint: only the inbox stands between a duplicate and a second shipment.
        postgres.fixture().execute("CREATE TABLE " + shipments + " (event_id text NOT NULL, order_key text NOT NULL)");
    }

    @AfterEach
    void dropTables() {
        postgres.fixture()
                .execute("DROP TABLE IF EXISTS " + store.config().tableName() + ", "
                        + inbox.config().tableName() + ", " + shipments + " CASCADE");
    }

    @Test
    @DisplayName("through Kafka: 45 records for 20 events, 20 shipments, offsets committed after processing")
    void kafka() throws SQLException {
        String topic = kafka.createTopic("inbox-e2e", 3);
        List<OutboxEvent> events = placeOrders(topic, "");
        relayWithFailures(KafkaPublisher.create(KafkaPublisherConfig.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .build()));

        Map<String, Object> properties = new HashMap<>(kafka.consumerProperties());
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, "shipping-" + UUID.randomUUID());
        AtomicInteger processed = new AtomicInteger();
        AtomicInteger duplicates = new AtomicInteger();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(properties)) {
            consumer.subscribe(List.of(topic));
            KafkaInboxConsumer<String, Connection> loop = KafkaInboxConsumer.create(
                    consumer,
                    KafkaInbox.of(inbox, CONSUMER),
                    (connection, record) ->
                            ship(connection, KafkaInbox.messageId(record).orElseThrow(), record.value()));
            await().atMost(Duration.ofSeconds(90)).pollInSameThread().until(() -> {
                KafkaInboxConsumer.PollResult result = loop.pollOnce(Duration.ofMillis(200));
                assertThat(result.failure()).isEmpty();
                processed.addAndGet(result.processed());
                duplicates.addAndGet(result.duplicates());
                return processed.get() + duplicates.get() >= DELIVERIES;
            });
        } finally {
            kafka.deleteTopic(topic);
        }

        assertThat(processed).hasValue(EVENTS);
        assertThat(duplicates).hasValue(DELIVERIES - EVENTS);
        assertOneShipmentPerEvent(events);
    }

    @Test
    @DisplayName("through RabbitMQ: 45 deliveries for 20 events, 20 shipments, every delivery acknowledged")
    void rabbitMq() throws Exception {
        RabbitMqDestination destination = rabbit.createDestination("inbox-e2e");
        List<OutboxEvent> events = placeOrders(destination.exchange(), "order.placed");
        relayWithFailures(new RabbitMqPublisher(RabbitMqPublisherConfig.builder()
                .uri(rabbit.uri())
                .connectionName("outbox-inbox-e2e-relay-" + UUID.randomUUID())
                .build()));

        RabbitMqInbox<Connection> rabbitInbox = RabbitMqInbox.of(inbox, CONSUMER);
        List<DeliveryOutcome> outcomes = new CopyOnWriteArrayList<>();
        try (com.rabbitmq.client.Connection connection =
                rabbit.connectionFactory().newConnection("outbox-inbox-e2e-consumer-" + UUID.randomUUID())) {
            try (Channel channel = connection.createChannel()) {
                channel.basicQos(10);
                channel.basicConsume(
                        destination.queue(),
                        false,
                        (tag, delivery) -> outcomes.add(rabbitInbox.handle(
                                channel,
                                delivery,
                                (transaction, d) -> ship(
                                        transaction,
                                        RabbitMqInbox.messageId(d.getProperties())
                                                .orElseThrow(),
                                        d.getBody()))),
                        tag -> {});
                await().atMost(Duration.ofSeconds(90)).until(() -> outcomes.size() >= DELIVERIES);
            }
            try (Channel channel = connection.createChannel()) {
                assertThat(channel.queueDeclarePassive(destination.queue()).getMessageCount())
                        .as("messages left unacknowledged (requeued when the consumer's channel closed)")
                        .isZero();
            }
        } finally {
            rabbit.delete(destination);
        }

        assertThat(outcomes).hasSize(DELIVERIES);
        assertThat(outcomes)
                .filteredOn(outcome -> outcome == DeliveryOutcome.PROCESSED)
                .hasSize(EVENTS);
        assertThat(outcomes)
                .filteredOn(outcome -> outcome == DeliveryOutcome.DUPLICATE)
                .hasSize(DELIVERIES - EVENTS);
        assertOneShipmentPerEvent(events);
    }

    /** The order service: each order and its event in one transaction. */
    private List<OutboxEvent> placeOrders(String destination, String routingKey) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < EVENTS; i++) {
            events.add(OutboxEvent.builder()
                    .type("order.placed")
                    .source("/orders-service")
                    .key("order-" + i)
                    .destination(destination)
                    .routingKey(routingKey)
                    .payload(("{\"order\":\"order-" + i + "\"}").getBytes(StandardCharsets.UTF_8))
                    .clock(clock)
                    .build());
        }
        return store.transactional().inTransaction(connection -> events);
    }

    /**
     * Tick 1 publishes every event and is killed before its mark; after the lease timeout the sweeper
     * reclaims them; tick 2 publishes them all again, 5 are acknowledged and then reported failed;
     * tick 3, after their backoff, publishes those 5 a third time. All end up sent.
     */
    private void relayWithFailures(Publisher broker) {
        RelayKilledBeforeMark killable = new RelayKilledBeforeMark(store);
        try (FaultyPublisher publisher = FaultyPublisher.wrapping(broker)) {
            // a killed relay does not try its mark again
            Relay relay = new Relay(
                    killable,
                    publisher,
                    new RelayConfig(500, Duration.ofSeconds(30)).withMarkRetryTimeout(Duration.ZERO),
                    RetryPolicy.ofDefaults(),
                    clock,
                    RelayListener.NONE);
            Sweeper sweeper = new Sweeper(store, SweeperConfig.ofDefaults(), clock);

            killable.kill();
            assertThatThrownBy(relay::runOnce)
                    .isInstanceOf(OutboxStoreException.class)
                    .hasMessageContaining("killed");
            assertThat(store.countByStatus()).containsEntry(EventStatus.IN_FLIGHT, (long) EVENTS);

            clock.advance(SweeperConfig.DEFAULT_LEASE_TIMEOUT.plusSeconds(1));
            assertThat(sweeper.runOnce()).isEqualTo(EVENTS);

            publisher.acknowledgeThenFail(ACKNOWLEDGED_THEN_FAILED);
            relay.runOnce();
            assertThat(store.countByStatus())
                    .containsEntry(EventStatus.SENT, (long) (EVENTS - ACKNOWLEDGED_THEN_FAILED))
                    .containsEntry(EventStatus.PENDING, (long) ACKNOWLEDGED_THEN_FAILED);

            clock.advance(Duration.ofMinutes(1));
            relay.runOnce();
            assertThat(store.countByStatus()).containsEntry(EventStatus.SENT, (long) EVENTS);
        }
    }

    /** The shipping service's effect, in the inbox's transaction. */
    private void ship(Connection connection, String eventId, byte[] payload) throws SQLException {
        try (PreparedStatement insert =
                connection.prepareStatement("INSERT INTO " + shipments + " (event_id, order_key) VALUES (?, ?)")) {
            insert.setString(1, eventId);
            insert.setString(2, new String(payload, StandardCharsets.UTF_8));
            insert.executeUpdate();
        }
    }

    private void assertOneShipmentPerEvent(List<OutboxEvent> events) throws SQLException {
        List<String> shipped = new ArrayList<>();
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT event_id FROM " + shipments)) {
            while (rows.next()) {
                shipped.add(rows.getString(1));
            }
        }
        assertThat(shipped)
                .as("one shipment per distinct event, none twice")
                .containsExactlyInAnyOrderElementsOf(
                        events.stream().map(event -> event.id().toString()).toList());
        for (OutboxEvent event : events) {
            assertThat(inbox.isProcessed(CONSUMER, event.id().toString())).isTrue();
        }
    }
}
