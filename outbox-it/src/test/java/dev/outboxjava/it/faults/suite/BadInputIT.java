package dev.outboxjava.it.faults.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.InvalidEventException;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.TransactionalOutbox;
import dev.outboxjava.testkit.FaultyPublisher;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad input at the API, against the real PostgreSQL: every bad value is refused before anything reaches
 * the database with an error naming the setting or field, and the transaction around it — the domain
 * row and its other events — rolls back as a whole (nothing half-written, nothing else lost).
 */
@DisplayName("Bad input is refused before commit, and nothing else is lost")
class BadInputIT {

    private static final PostgresFixture postgres = PostgresFixture.shared();

    private String schema;
    private PostgresOutboxStore store;
    private TransactionalOutbox outbox;

    @BeforeEach
    void table() {
        schema = postgres.newSchema();
        store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .tableName(schema + ".outbox_events")
                        .build());
        store.ensureSchema();
        postgres.execute("CREATE TABLE " + schema + ".orders (id text PRIMARY KEY)");
        outbox = store.transactional();
    }

    @AfterEach
    void drop() {
        postgres.dropSchema(schema);
    }

    @ParameterizedTest(name = "table name \"{0}\"")
    @ValueSource(
            strings = {
                "outbox; DROP TABLE orders",
                "outbox\"; DROP TABLE orders; --",
                "Outbox_Events",
                "public.outbox.events",
                "outbox events",
                "a_table_name_that_is_far_too_long_for_an_outbox_table_x",
                "",
                "1outbox"
            })
    @DisplayName("an injected or malformed table name is refused by the configuration, naming tableName")
    void tableNameInjection(String name) {
        assertThatThrownBy(() -> PostgresOutboxConfig.builder().tableName(name).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .satisfies(e -> assertThat(((InvalidConfigurationException) e).setting())
                        .isEqualTo("tableName"));
        assertThat(tableExists("orders")).as("the domain table survived").isTrue();
    }

    @ParameterizedTest(name = "channel \"{0}\"")
    @ValueSource(strings = {"wake'; NOTIFY x; --", "Wake", "wake up", "a\"b", ""})
    @DisplayName("an injected or malformed notify channel is refused by the configuration, naming notifyChannel")
    void channelInjection(String channel) {
        assertThatThrownBy(() ->
                        PostgresOutboxConfig.builder().notifyChannel(channel).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .satisfies(e -> assertThat(((InvalidConfigurationException) e).setting())
                        .isEqualTo("notifyChannel"));
    }

    @Test
    @DisplayName(
            "a payload over the maximum fails the transaction: the order row and the transaction's other event roll back")
    void payloadOverMaximum() {
        assertThatThrownBy(() -> outbox.inTransaction(connection -> {
                    insertOrder(connection, "order-1");
                    return List.of(
                            event("order.placed"),
                            OutboxEvent.builder()
                                    .type("order.attachment")
                                    .destination("orders")
                                    .payload(new byte[OutboxEvent.DEFAULT_MAX_PAYLOAD_BYTES + 1])
                                    .build());
                }))
                .isInstanceOf(InvalidEventException.class)
                .hasMessageContaining("payload")
                .hasMessageContaining("over the maximum of " + OutboxEvent.DEFAULT_MAX_PAYLOAD_BYTES);
        assertNothingWritten();
        assertGoodTransactionStillWorks();
    }

    @ParameterizedTest(name = "header \"{0}\"")
    @ValueSource(strings = {"bad name", "ce_id", "content-type", "x\nInjected: yes", "9lives", ""})
    @DisplayName("an invalid or reserved header name fails the transaction, naming headers")
    void invalidHeaderName(String header) {
        assertThatThrownBy(() -> outbox.inTransaction(connection -> {
                    insertOrder(connection, "order-1");
                    return List.of(
                            event("order.placed"),
                            OutboxEvent.builder()
                                    .type("order.tagged")
                                    .destination("orders")
                                    .header(header, "v")
                                    .payload(new byte[0])
                                    .build());
                }))
                .isInstanceOf(InvalidEventException.class)
                .satisfies(e -> assertThat(((InvalidEventException) e).field()).isEqualTo("headers"));
        assertNothingWritten();
        assertGoodTransactionStillWorks();
    }

    @ParameterizedTest(name = "type \"{0}\"")
    @ValueSource(strings = {"", "   ", "\t"})
    @DisplayName("a blank type or destination fails the transaction, naming the field")
    void blankTypeOrDestination(String blank) {
        assertThatThrownBy(() -> outbox.inTransaction(connection -> {
                    insertOrder(connection, "order-1");
                    return List.of(
                            event("order.placed"),
                            OutboxEvent.builder()
                                    .type(blank)
                                    .destination("orders")
                                    .payload(new byte[0])
                                    .build());
                }))
                .isInstanceOf(InvalidEventException.class)
                .satisfies(e -> assertThat(((InvalidEventException) e).field()).isEqualTo("type"));
        assertThatThrownBy(() -> outbox.inTransaction(connection -> {
                    insertOrder(connection, "order-1");
                    return List.of(
                            event("order.placed"),
                            OutboxEvent.builder()
                                    .type("order.placed")
                                    .destination(blank)
                                    .payload(new byte[0])
                                    .build());
                }))
                .isInstanceOf(InvalidEventException.class)
                .satisfies(e -> assertThat(((InvalidEventException) e).field()).isEqualTo("destination"));
        assertNothingWritten();
        assertGoodTransactionStillWorks();
    }

    @Test
    @DisplayName("a relay batch larger than RelayConfig.MAX_BATCH_SIZE is refused, naming relay.batchSize")
    void batchTooLarge() {
        assertThatThrownBy(() -> new RelayConfig(RelayConfig.MAX_BATCH_SIZE + 1, Duration.ofSeconds(5)))
                .isInstanceOf(InvalidConfigurationException.class)
                .satisfies(e -> assertThat(((InvalidConfigurationException) e).setting())
                        .isEqualTo("relay.batchSize"));
        assertThatThrownBy(() -> new RelayConfig(0, Duration.ofSeconds(5)))
                .isInstanceOf(InvalidConfigurationException.class);
        assertThat(new RelayConfig(RelayConfig.MAX_BATCH_SIZE, Duration.ofSeconds(5)).batchSize())
                .isEqualTo(RelayConfig.MAX_BATCH_SIZE);
    }

    @Test
    @DisplayName(
            "a large append (2,500 events, several INSERT chunks) that fails in its last chunk rolls back every chunk and the order row")
    void largeAppendFailingLateRollsBackWhole() {
        // the database refuses the last event (a trigger stands for any failure the INSERT can meet)
        postgres.execute("CREATE FUNCTION " + schema + ".refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$"
                + " BEGIN RAISE EXCEPTION 'poison event'; END $$");
        postgres.execute("CREATE TRIGGER refuse_poison BEFORE INSERT ON " + schema + ".outbox_events FOR EACH ROW"
                + " WHEN (NEW.type = 'order.poison') EXECUTE FUNCTION " + schema + ".refuse_poison()");
        assertThatThrownBy(() -> outbox.inTransaction(connection -> {
                    insertOrder(connection, "order-1");
                    List<OutboxEvent> events = new ArrayList<>();
                    for (int i = 0; i < 2_499; i++) {
                        events.add(event("order.line"));
                    }
                    events.add(event("order.poison"));
                    return events;
                }))
                .isInstanceOf(OutboxStoreException.class);
        assertNothingWritten();
        List<OutboxEvent> appended = outbox.inTransaction(connection -> {
            insertOrder(connection, "order-2");
            List<OutboxEvent> events = new ArrayList<>();
            for (int i = 0; i < 2_500; i++) {
                events.add(event("order.line"));
            }
            return events;
        });
        assertThat(appended).hasSize(2_500);
        assertThat(store.countByStatus().get(EventStatus.PENDING)).isEqualTo(2_500);
    }

    @Test
    @DisplayName("requeue racing a running relay: every dead letter is requeued exactly once and published, none lost")
    void requeueRacingTheRelay() throws Exception {
        int events = 300;
        List<OutboxEvent> appended = outbox.inTransaction(connection -> {
            insertOrder(connection, "order-1");
            List<OutboxEvent> list = new ArrayList<>();
            for (int i = 0; i < events; i++) {
                list.add(OutboxEvent.builder()
                        .type("payment.requested")
                        .destination("payments")
                        .key("k-" + (i % 7))
                        .maxAttempts(1)
                        .payload(new byte[0])
                        .build());
            }
            return list;
        });
        RecordingPublisher broker = new RecordingPublisher();
        FaultyPublisher publisher =
                FaultyPublisher.wrapping(broker).failType("payment.requested", FaultyPublisher.Failure.PERMANENT);
        Relay relay = new Relay(
                store,
                publisher,
                new RelayConfig(40, Duration.ofSeconds(5)),
                RetryPolicy.ofDefaults(),
                Clock.systemUTC(),
                RelayListener.NONE);
        while (store.countByStatus().get(EventStatus.FAILED) < events) {
            relay.runOnce();
        }
        publisher.heal();

        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger requeued = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            threads.add(new Thread(() -> {
                await(go);
                while (running.get()) {
                    relay.runOnce();
                }
            }));
        }
        for (int i = 0; i < 3; i++) {
            threads.add(new Thread(() -> {
                await(go);
                for (int round = 0; round < 20; round++) {
                    requeued.addAndGet((int) store.requeueDeadLetters(
                            DeadLetterFilter.any(),
                            "bad-input",
                            Clock.systemUTC().instant()));
                }
            }));
        }
        threads.forEach(Thread::start);
        go.countDown();
        for (Thread thread : threads.subList(2, threads.size())) {
            thread.join(60_000);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (store.countByStatus().get(EventStatus.SENT) < events && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        running.set(false);
        for (Thread thread : threads.subList(0, 2)) {
            thread.join(30_000);
        }

        assertThat(requeued.get()).as("each dead letter requeued exactly once").isEqualTo(events);
        assertThat(store.countByStatus())
                .containsEntry(EventStatus.SENT, (long) events)
                .containsEntry(EventStatus.FAILED, 0L)
                .containsEntry(EventStatus.IN_FLIGHT, 0L)
                .containsEntry(EventStatus.PENDING, 0L);
        Set<UUID> published = new HashSet<>(broker.publishedIds());
        assertThat(published).containsAll(appended.stream().map(OutboxEvent::id).toList());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static OutboxEvent event(String type) {
        return OutboxEvent.builder()
                .type(type)
                .destination("orders")
                .key("order-1")
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
    }

    private void insertOrder(Connection connection, String id) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + schema + ".orders VALUES (?)")) {
            insert.setString(1, id);
            insert.executeUpdate();
        }
    }

    private void assertNothingWritten() {
        assertThat(count("orders")).as("order rows").isZero();
        assertThat(count("outbox_events")).as("outbox rows").isZero();
    }

    private void assertGoodTransactionStillWorks() {
        List<OutboxEvent> appended = outbox.inTransaction(connection -> {
            insertOrder(connection, "order-ok");
            return List.of(event("order.placed"));
        });
        assertThat(appended).hasSize(1);
        assertThat(count("orders")).isEqualTo(1);
        assertThat(store.find(appended.get(0).id())).isPresent();
    }

    private long count(String table) {
        try (Connection connection = postgres.dataSource().getConnection();
                PreparedStatement query = connection.prepareStatement("SELECT count(*) FROM " + schema + "." + table);
                ResultSet rows = query.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private boolean tableExists(String table) {
        try (Connection connection = postgres.dataSource().getConnection();
                PreparedStatement query = connection.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            query.setString(1, schema + "." + table);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getBoolean(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
