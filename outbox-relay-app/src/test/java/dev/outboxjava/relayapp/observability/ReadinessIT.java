package dev.outboxjava.relayapp.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.multibindings.OptionalBinder;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.relayapp.HttpConfig;
import dev.outboxjava.relayapp.OutboxCli;
import dev.outboxjava.relayapp.internal.HealthHttpServer;
import dev.outboxjava.relayapp.internal.StandaloneModules;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.worker.HealthConfig;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import dev.outboxjava.worker.observability.DatabaseHealthModule;
import dev.outboxjava.worker.testsupport.SwitchablePublisher;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Readiness is about progress, against the real PostgreSQL: with the default lag threshold (5 minutes),
 * events appended ten minutes ago that wait by design (scheduled an hour ahead, waiting for a retry,
 * held behind a dead letter of their key) leave the worker ready and are reported beside the verdict,
 * in the gauges, the JSON health details and {@code status}; an event of the same age that a relay could
 * publish but nobody does makes it not ready, and a relay that publishes it makes it ready again.
 */
@DisplayName("Readiness is about progress")
class ReadinessIT {

    private static final Duration TEN_MINUTES = Duration.ofMinutes(10);

    private OwnDatabase database;
    private final SwitchablePublisher publisher = new SwitchablePublisher();
    private final PrometheusMeterRegistry registry = StandaloneModules.prometheus();

    @BeforeEach
    void fresh() {
        database = new OwnDatabase(PostgresFixture.shared());
    }

    @AfterEach
    void cleanUp() {
        registry.close();
        database.close();
    }

    /** The default thresholds, except the database-wide open-transaction signal (other tests' business). */
    private static HealthConfig defaults() {
        return new HealthConfig(HealthConfig.DEFAULT_MAX_LAG, Duration.ZERO, Optional.empty());
    }

    private OutboxWorker worker(Ordering ordering) {
        OutboxWorkerConfig config = OutboxWorkerConfig.builder()
                .pollInterval(Duration.ofMillis(200))
                .metricsPollInterval(Duration.ofMillis(100))
                .relay(RelayConfig.ofDefaults().withOrdering(ordering))
                .build();
        Injector injector = Guice.createInjector(
                new OutboxWorkerModule(config),
                new PostgresStoreModule(
                        database.dataSource,
                        database.storeConfig().toBuilder()
                                .wakeUpMode(WakeUpMode.NONE)
                                .build()),
                new DatabaseHealthModule(defaults()),
                new AbstractModule() {
                    @Override
                    protected void configure() {
                        bind(Publisher.class).toInstance(publisher);
                        OptionalBinder.newOptionalBinder(binder(), MeterRegistry.class)
                                .setBinding()
                                .toInstance(registry);
                    }
                });
        return injector.getInstance(OutboxWorker.class);
    }

    private PostgresOutboxStore store(Ordering ordering) {
        return PostgresOutboxStore.create(
                database.dataSource,
                PostgresOutboxConfig.builder()
                        .tableName(database.table)
                        .ordering(ordering)
                        .build());
    }

    /** An event appended {@code age} ago (its creation time), optionally scheduled. */
    private static OutboxEvent event(String key, Duration age, Optional<Instant> availableAt) {
        OutboxEvent.Builder builder = OutboxEvent.builder()
                .clock(Clock.fixed(Instant.now().minus(age), ZoneOffset.UTC))
                .type("order.placed")
                .destination("orders")
                .key(key)
                .maxAttempts(5)
                .payload("{}".getBytes(StandardCharsets.UTF_8));
        availableAt.ifPresent(builder::availableAt);
        return builder.build();
    }

    private void append(PostgresOutboxStore store, OutboxEvent... events) throws Exception {
        try (Connection connection = database.dataSource.getConnection()) {
            connection.setAutoCommit(false);
            store.writer().append(connection, List.of(events));
            connection.commit();
        }
    }

    private double gauge(String name) {
        return registry.get(name).gauge().value();
    }

    /** Ready now, and still ready after the gauges have been polled many times. */
    private static void assertStaysReady(OutboxWorker worker) {
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(worker.checkReadiness().healthy())
                        .as(worker.checkReadiness().detail())
                        .isTrue());
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(10))
                .until(() -> worker.checkReadiness().healthy());
    }

    @Test
    @DisplayName("an event appended ten minutes ago and scheduled an hour ahead leaves the worker ready, "
            + "and shows as scheduled in the gauges, the JSON details and status")
    void scheduledEventDoesNotFlipReadiness(@TempDir Path dir) throws Exception {
        PostgresOutboxStore store = store(Ordering.none());
        append(store, event("a", TEN_MINUTES, Optional.of(Instant.now().plus(Duration.ofHours(1)))));

        try (OutboxWorker worker = worker(Ordering.none())) {
            worker.start();
            assertStaysReady(worker);
            await().atMost(Duration.ofSeconds(30)).until(() -> gauge("outbox.events.scheduled") == 1.0);
            assertThat(gauge("outbox.events.eligible")).isZero();
            assertThat(gauge("outbox.events.oldest_eligible_age")).isZero();
            assertThat(gauge("outbox.events.oldest_pending_age"))
                    .as("the creation age is still shown")
                    .isGreaterThan(TEN_MINUTES.toSeconds() - 5);
            assertThat(worker.checkReadiness().detail()).contains("scheduled 1");

            try (HealthHttpServer http = HealthHttpServer.start(new HttpConfig("127.0.0.1", 0), registry, worker)) {
                HttpResponse<String> response = HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(URI.create(
                                                "http://127.0.0.1:" + http.port() + "/health/ready?format=json"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
                JsonNode details = new ObjectMapper().readTree(response.body());
                assertThat(details.path("status").asText()).isEqualTo("UP");
                assertThat(details.path("backlog").path("scheduled").asLong()).isEqualTo(1);
                assertThat(details.path("backlog").path("eligible").asLong()).isZero();
                assertThat(details.path("backlog").path("pending").asLong()).isEqualTo(1);
            }
        }
        assertThat(status(dir))
                .containsPattern("(?m)^scheduled +1$")
                .containsPattern("(?m)^eligible +0$")
                .containsPattern("(?m)^oldest_eligible_wait +none$")
                .containsPattern("(?m)^ready +yes");
    }

    @Test
    @DisplayName("an event appended ten minutes ago that waits for its retry leaves the worker ready")
    void retryingEventDoesNotFlipReadiness() throws Exception {
        PostgresOutboxStore store = store(Ordering.none());
        OutboxEvent failing = event("a", TEN_MINUTES, Optional.empty());
        append(store, failing);
        UUID lease = UUID.randomUUID();
        assertThat(store.lease(lease, 10, Instant.now())).hasSize(1);
        store.markRetry(
                lease,
                List.of(new RetryMark(
                        failing.id(), "broker said no", Instant.now().plus(Duration.ofHours(1)))),
                Instant.now());

        try (OutboxWorker worker = worker(Ordering.none())) {
            worker.start();
            assertStaysReady(worker);
            await().atMost(Duration.ofSeconds(30)).until(() -> gauge("outbox.events.retrying") == 1.0);
            assertThat(gauge("outbox.events.eligible")).isZero();
        }
    }

    @Test
    @DisplayName("with per-key ordering, old events held behind a dead letter of their key leave the worker ready")
    void heldEventsDoNotFlipReadiness() throws Exception {
        Ordering ordering = Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY);
        PostgresOutboxStore store = store(ordering);
        OutboxEvent poison = event("a", TEN_MINUTES, Optional.empty());
        append(store, poison);
        UUID lease = UUID.randomUUID();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !store.lease(lease, 10, Instant.now()).isEmpty());
        store.markDeadLettered(lease, List.of(new DeadLetterMark(poison.id(), "poison")), Instant.now());
        append(store, event("a", TEN_MINUTES, Optional.empty()), event("a", TEN_MINUTES, Optional.empty()));

        try (OutboxWorker worker = worker(ordering)) {
            worker.start();
            assertStaysReady(worker);
            await().atMost(Duration.ofSeconds(30)).until(() -> gauge("outbox.events.held") == 2.0);
            assertThat(gauge("outbox.events.eligible")).isZero();
            assertThat(gauge("outbox.events.dead_letters")).isEqualTo(1.0);
        }
    }

    @Test
    @DisplayName("an eligible event appended ten minutes ago that no relay publishes flips readiness; "
            + "publishing it heals it")
    void oldEligibleEventFlipsReadiness() throws Exception {
        PostgresOutboxStore store = store(Ordering.none());
        append(store, event("a", TEN_MINUTES, Optional.empty()));

        try (OutboxWorker worker = worker(Ordering.none())) {
            // not started: no relay takes the event, so nothing makes progress
            HealthCheck ready = worker.checkReadiness();
            assertThat(ready.healthy()).as(ready.detail()).isFalse();
            assertThat(ready.detail())
                    .contains("oldest eligible event")
                    .contains("outbox.health.max.lag=5m")
                    .contains("eligible 1");

            worker.start();
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(worker.checkReadiness().healthy())
                            .as(worker.checkReadiness().detail())
                            .isTrue());
            assertThat(publisher.recording.published()).hasSize(1);
        }
    }

    /** Runs {@code outbox-worker status} in process against the test's database and returns what it printed. */
    private String status(Path dir) throws Exception {
        Path file = dir.resolve("outbox-" + UUID.randomUUID() + ".properties");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "outbox.db.url=" + database.url,
                        "outbox.db.user=" + database.postgres.user(),
                        "outbox.db.password=" + database.postgres.password(),
                        "outbox.table=" + database.table,
                        "outbox.health.inbox.table=none",
                        "outbox.health.max.xmin.age=0s",
                        ""));
        StringWriter out = new StringWriter();
        CommandLine commandLine = OutboxCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(out, true));
        int exit = commandLine.execute("status", "--config", file.toString());
        assertThat(exit).as(out.toString()).isZero();
        return out.toString();
    }
}
