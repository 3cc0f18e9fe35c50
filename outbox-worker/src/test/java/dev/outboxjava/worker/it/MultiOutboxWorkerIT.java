package dev.outboxjava.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.testkit.FaultyPublisher;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.worker.InvalidSettingsException;
import dev.outboxjava.worker.MultiOutboxConfig;
import dev.outboxjava.worker.MultiOutboxWorker;
import dev.outboxjava.worker.OutboxId;
import dev.outboxjava.worker.OutboxTables;
import dev.outboxjava.worker.OutboxWorkerConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * One worker for many outboxes against the real PostgreSQL: tenant schemas found by a discovery rule,
 * drained fairly, each tenant keeping its per-key order; a tenant whose destination refuses is backed
 * off on its own; tenants created and dropped while it runs are picked up and let go.
 */
@DisplayName("A worker of many outboxes")
class MultiOutboxWorkerIT {

    private static final String TABLE = "outbox_events";
    private static final int KEYS = 5;

    private final PostgresFixture postgres = PostgresFixture.shared();
    /** Every tenant schema of this test starts with it, so the discovery rule sees no other test's. */
    private final String prefix =
            "mt" + UUID.randomUUID().toString().replace("-", "").substring(0, 8).toLowerCase(Locale.ROOT) + "_";

    private final List<String> schemas = new ArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private MultiOutboxWorker worker;

    @AfterEach
    void dropTenants() {
        if (worker != null) {
            worker.close();
        }
        for (String schema : schemas) {
            postgres.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    private static PostgresOutboxConfig template(WakeUpMode wakeUp) {
        return PostgresOutboxConfig.builder()
                .tableName(TABLE)
                .ordering(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY))
                .completionMode(CompletionMode.KEEP_SENT)
                .wakeUpMode(wakeUp)
                .build();
    }

    /** Creates tenant {@code n}'s schema and outbox table, and appends {@code events} events to it. */
    private String tenant(int n, int events, String destination) throws SQLException {
        String schema = prefix + n;
        postgres.execute("CREATE SCHEMA " + schema);
        schemas.add(schema);
        PostgresOutboxStore store = store(schema);
        store.ensureSchema();
        append(store, events, destination);
        return schema;
    }

    private PostgresOutboxStore store(String schema) {
        return PostgresOutboxStore.create(
                postgres.dataSource(),
                template(WakeUpMode.NONE).toBuilder()
                        .tableName(schema + "." + TABLE)
                        .build());
    }

    /** Events numbered 0.. in the payload, keyed {@code k0}..{@code k4} in turn, for {@code destination}. */
    private void append(PostgresOutboxStore store, int count, String destination) throws SQLException {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(OutboxEvent.builder()
                    .type("order.placed")
                    .destination(destination)
                    .key("k" + (i % KEYS))
                    .payload(Integer.toString(i).getBytes(StandardCharsets.UTF_8))
                    .build());
        }
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            store.writer().append(connection, events);
            connection.commit();
        }
    }

    private long count(String schema, EventStatus status) {
        return store(schema).countByStatus().getOrDefault(status, 0L);
    }

    private MultiOutboxWorker.Builder discovering(DataSource dataSource, WakeUpMode wakeUp) {
        return MultiOutboxWorker.builder()
                .database("main", dataSource, OutboxTables.discovered(Pattern.compile(prefix + ".*"), template(wakeUp)))
                .meterRegistry(registry);
    }

    @Test
    @DisplayName("given 50 tenant schemas with a backlog each, then one worker drains them all, every tenant got at"
            + " least half an equal share of the first fifth published, and each key's events arrived in order")
    void fiftyTenants() throws Exception {
        int tenants = 50;
        int perTenant = 200;
        for (int n = 0; n < tenants; n++) {
            tenant(n, perTenant, prefix + n);
        }
        int firstFifth = tenants * perTenant / 5;
        CountingPublisher publisher = new CountingPublisher(new RecordingPublisher(), firstFifth);
        worker = discovering(postgres.dataSource(), WakeUpMode.NONE)
                .publisher(publisher)
                .config(OutboxWorkerConfig.builder()
                        .relayThreads(2)
                        .relay(new RelayConfig(
                                20, Duration.ofSeconds(30), Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY)))
                        .build())
                .build();

        worker.start();

        assertThat(worker.outboxes()).hasSize(tenants);
        await().atMost(Duration.ofSeconds(120)).until(() -> publisher.recording.size() >= tenants * perTenant);
        for (String schema : schemas) {
            await().atMost(Duration.ofSeconds(30)).until(() -> count(schema, EventStatus.SENT) == perTenant);
        }
        assertThat(publisher.recording.size()).as("each event once").isEqualTo(tenants * perTenant);

        Map<String, Integer> share = publisher.snapshot();
        int equalShare = firstFifth / tenants;
        for (String schema : schemas) {
            assertThat(share.getOrDefault(schema, 0))
                    .as(
                            "tenant %s's part of the first %d events published (equal share %d)",
                            schema, firstFifth, equalShare)
                    .isGreaterThanOrEqualTo(equalShare / 2);
        }

        for (String schema : schemas) {
            Map<String, List<Integer>> byKey = new HashMap<>();
            for (OutboxEvent event :
                    publisher.recording.published(e -> e.destination().equals(schema))) {
                byKey.computeIfAbsent(event.key().orElseThrow(), k -> new ArrayList<>())
                        .add(Integer.parseInt(new String(event.payload(), StandardCharsets.UTF_8)));
            }
            assertThat(byKey).hasSize(KEYS);
            byKey.values()
                    .forEach(numbers ->
                            assertThat(numbers).as("tenant %s", schema).isSorted());
        }
        assertThat(registry.get("outbox.events.published")
                        .tag("schema", schemas.get(7))
                        .tag("table", TABLE)
                        .counter()
                        .count())
                .isEqualTo(perTenant);
        assertThat(registry.get("outbox.outboxes").gauge().value()).isEqualTo(tenants);
    }

    @Test
    @DisplayName("given one tenant whose destination refuses every event, then the others drain, the refusing one"
            + " is backed off on its own and named by readiness, and its first events are dead-lettered")
    void refusingTenant() throws Exception {
        String refusing = tenant(0, 50, "nowhere");
        List<String> others = new ArrayList<>();
        for (int n = 1; n <= 4; n++) {
            others.add(tenant(n, 300, prefix + n));
        }
        FaultyPublisher publisher = FaultyPublisher.wrapping(new RecordingPublisher())
                .failWhen(
                        event -> event.destination().equals("nowhere"),
                        FaultyPublisher.Failure.PERMANENT,
                        "destination nowhere");
        worker = discovering(postgres.dataSource(), WakeUpMode.NONE)
                .publisher(publisher)
                .config(OutboxWorkerConfig.builder()
                        .relayThreads(1)
                        .pollInterval(Duration.ofMillis(100))
                        .backoffInitial(Duration.ofSeconds(2))
                        .backoffMax(Duration.ofSeconds(2))
                        .relay(new RelayConfig(
                                50, Duration.ofSeconds(30), Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY)))
                        .build())
                .build();

        worker.start();

        OutboxId refusingId = new OutboxId("main", refusing, TABLE);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> worker.readiness().backingOff().stream()
                        .anyMatch(state -> state.id().equals(refusingId)));
        HealthCheck readiness = worker.checkReadiness();
        assertThat(readiness.detail()).contains(refusing + "." + TABLE).contains("backs off");
        assertThat(readiness.healthy()).as("the others are relayed: ready").isTrue();
        for (String schema : others) {
            await().atMost(Duration.ofSeconds(60)).until(() -> count(schema, EventStatus.SENT) == 300);
        }
        // the first event of each key is dead-lettered and holds its key's later events back
        assertThat(count(refusing, EventStatus.FAILED)).isEqualTo(KEYS);
        assertThat(count(refusing, EventStatus.SENT)).isZero();
    }

    @Test
    @DisplayName("given a running worker, when a tenant schema is created, then it is relayed without a restart;"
            + " when one is dropped, then it is let go and its meters are removed")
    void tenantsComeAndGo() throws Exception {
        String stays = tenant(0, 10, prefix + 0);
        String leaves = tenant(1, 10, prefix + 1);
        RecordingPublisher publisher = new RecordingPublisher();
        worker = discovering(postgres.dataSource(), WakeUpMode.NONE)
                .publisher(publisher)
                .config(OutboxWorkerConfig.builder()
                        .pollInterval(Duration.ofMillis(100))
                        .build())
                .multiConfig(MultiOutboxConfig.builder()
                        .discoveryInterval(Duration.ofMillis(300))
                        .maxIdlePollInterval(Duration.ofMillis(500))
                        .build())
                .build();
        worker.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> publisher.size() == 20);

        String arrives = tenant(2, 10, prefix + 2);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> worker.outboxes().contains(new OutboxId("main", arrives, TABLE)));
        await().atMost(Duration.ofSeconds(30)).until(() -> count(arrives, EventStatus.SENT) == 10);

        postgres.execute("DROP SCHEMA " + leaves + " CASCADE");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !worker.outboxes().contains(new OutboxId("main", leaves, TABLE)));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> registry.find("outbox.events.published")
                                .tag("schema", leaves)
                                .counter()
                        == null);
        assertThat(worker.outboxes())
                .containsExactly(new OutboxId("main", stays, TABLE), new OutboxId("main", arrives, TABLE));

        append(store(stays), 5, prefix + 0);
        await().atMost(Duration.ofSeconds(30)).until(() -> count(stays, EventStatus.SENT) == 15);
        assertThat(publisher.size()).isEqualTo(35);
    }

    @Test
    @DisplayName("given idle tenants that poll rarely, when a producer notifies one tenant's channel, then the"
            + " worker's one LISTEN connection wakes that tenant and its events are published before any poll")
    void oneListenConnectionWakesTheTenant() throws Exception {
        tenant(0, 0, prefix + 0);
        String woken = tenant(1, 0, prefix + 1);
        RecordingPublisher publisher = new RecordingPublisher();
        worker = discovering(postgres.dataSource(), WakeUpMode.NOTIFY_AFTER_COMMIT)
                .publisher(publisher)
                .config(OutboxWorkerConfig.builder()
                        .pollInterval(Duration.ofSeconds(60))
                        .build())
                .multiConfig(MultiOutboxConfig.builder()
                        .maxIdlePollInterval(Duration.ofSeconds(120))
                        .build())
                .build();
        worker.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> listeners() == 1);

        append(store(woken), 3, prefix + 1);

        // notified again on each look: the listener takes up a new channel within its poll timeout
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    postgres.execute("NOTIFY " + woken + "_" + TABLE);
                    return count(woken, EventStatus.SENT) == 3;
                });
        assertThat(publisher.size()).isEqualTo(3);
    }

    /** The LISTEN connections of this worker in pg_stat_activity. */
    private int listeners() throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement();
                var rows = statement.executeQuery(
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'outbox-listener:main'")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    @Test
    @DisplayName("given a HikariCP pool smaller than the relay threads plus the LISTEN connection, then the worker is"
            + " refused at build, naming the relay threads and the database's pool")
    void connectionBudget() {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(postgres.jdbcUrl());
        hikari.setUsername(postgres.user());
        hikari.setPassword(postgres.password());
        hikari.setMaximumPoolSize(2);
        hikari.setInitializationFailTimeout(-1);
        try (HikariDataSource pool = new HikariDataSource(hikari)) {
            assertThatThrownBy(() -> discovering(pool, WakeUpMode.NOTIFY_AFTER_COMMIT)
                            .publisher(new RecordingPublisher())
                            .config(OutboxWorkerConfig.builder().relayThreads(2).build())
                            .build())
                    .isInstanceOf(InvalidSettingsException.class)
                    .hasMessageContaining("relayThreads")
                    .hasMessageContaining("the maximum pool size of database main is 2");
        }
    }

    /** Counts the events handed to it per destination, and keeps the counts as they were after the first {@code threshold}. */
    private static final class CountingPublisher implements Publisher {
        final RecordingPublisher recording;
        private final int threshold;
        private final Map<String, Integer> counts = new ConcurrentHashMap<>();
        private Map<String, Integer> snapshot;
        private int total;

        CountingPublisher(RecordingPublisher recording, int threshold) {
            this.recording = recording;
            this.threshold = threshold;
        }

        @Override
        public synchronized CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
            for (OutboxEvent event : batch) {
                counts.merge(event.destination(), 1, Integer::sum);
            }
            total += batch.size();
            if (snapshot == null && total >= threshold) {
                snapshot = Map.copyOf(counts);
            }
            return recording.publish(batch, timeout);
        }

        synchronized Map<String, Integer> snapshot() {
            return snapshot;
        }

        @Override
        public HealthCheck checkHealth() {
            return recording.checkHealth();
        }

        @Override
        public void close() {
            recording.close();
        }
    }
}
