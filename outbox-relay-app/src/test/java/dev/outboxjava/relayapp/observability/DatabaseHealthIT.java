package dev.outboxjava.relayapp.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.multibindings.OptionalBinder;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.postgres.health.PostgresHealthProbe;
import dev.outboxjava.relayapp.OutboxCli;
import dev.outboxjava.relayapp.internal.cli.ExitCodes;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.worker.HealthConfig;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import dev.outboxjava.worker.observability.DatabaseHealthModule;
import dev.outboxjava.worker.observability.DatabaseHealthMonitor;
import dev.outboxjava.worker.testsupport.SwitchablePublisher;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
 * The database health signals against the real PostgreSQL, each test in a database of its own (the
 * oldest-transaction signal is database wide): an open transaction flips readiness and shows in the
 * gauges and in {@code status}; a backlog nobody can publish makes the lag gauge grow.
 */
@DisplayName("Database health signals")
class DatabaseHealthIT {

    private static final Duration POLL = Duration.ofMillis(100);

    private OwnDatabase database;
    private final SwitchablePublisher publisher = new SwitchablePublisher();
    private final MeterRegistry registry = new SimpleMeterRegistry();

    @BeforeEach
    void fresh() {
        database = new OwnDatabase(PostgresFixture.shared());
    }

    @AfterEach
    void cleanUp() {
        database.close();
    }

    private OutboxWorker worker(HealthConfig health) {
        OutboxWorkerConfig config = OutboxWorkerConfig.builder()
                .pollInterval(Duration.ofMillis(200))
                .metricsPollInterval(POLL)
                .maxBrokerOutage(Duration.ZERO)
                .retryPolicy(RetryPolicy.builder()
                        .initialDelay(Duration.ofMillis(300))
                        .multiplier(1.0)
                        .maxDelay(Duration.ofMillis(300))
                        .jitter(0)
                        .build())
                .build();
        Injector injector = Guice.createInjector(
                new OutboxWorkerModule(config),
                new PostgresStoreModule(
                        database.dataSource,
                        database.storeConfig().toBuilder()
                                .wakeUpMode(WakeUpMode.NONE)
                                .build()),
                new DatabaseHealthModule(health),
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

    private double gauge(String name) {
        return registry.get(name).gauge().value();
    }

    @Test
    @DisplayName("a transaction held open shows as the oldest transaction and flips readiness until it ends")
    void openTransactionFlipsReadiness(@TempDir Path dir) throws Exception {
        HealthConfig health = new HealthConfig(Duration.ZERO, Duration.ofSeconds(2), Optional.of(database.inboxTable));
        try (OutboxWorker worker = worker(health)) {
            worker.start();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> worker.checkReadiness().healthy());
            assertThat(gauge("outbox.inbox.size")).as("the inbox table's size").isPositive();
            assertThat(gauge("outbox.table.dead_tuples")).isNotNaN();

            try (Connection holder = database.connect("obs-it-holder")) {
                holder.setAutoCommit(false);
                long xid;
                int pid;
                try (Statement statement = holder.createStatement();
                        ResultSet row =
                                statement.executeQuery("SELECT pg_current_xact_id()::text::bigint, pg_backend_pid()")) {
                    row.next();
                    xid = row.getLong(1);
                    pid = row.getInt(2);
                }
                assertThat(xid).isPositive();

                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    HealthCheck ready = worker.checkReadiness();
                    assertThat(ready.healthy()).isFalse();
                    assertThat(ready.detail())
                            .contains("xmin horizon")
                            .contains("pid " + pid)
                            .contains("obs-it-holder")
                            .contains("client 127.0.0.1:")
                            .contains("last query started")
                            .contains("outbox.health.max.xmin.age=2s");
                });
                assertThat(gauge("outbox.db.oldest_transaction_age")).isGreaterThan(2.0);
                assertThat(gauge("outbox.db.oldest_transaction_xid_age")).isGreaterThanOrEqualTo(1.0);
                assertThat(gauge("outbox.db.xmin_horizon_xid_age")).isGreaterThanOrEqualTo(1.0);

                String status = status(dir, "outbox.health.max.xmin.age=1s");
                assertThat(status)
                        .containsPattern("oldest_transaction +pid " + pid + " \\(obs-it-holder\\), "
                                + "idle in transaction, client 127.0.0.1:")
                        .containsPattern("xmin_horizon +\\d+ transaction ids old, held by open transaction: pid " + pid
                                + " \\(obs-it-holder\\)")
                        .containsPattern("(?m)^prepared_xacts +none$")
                        .containsPattern("ready +no \\(.*xmin horizon");

                holder.commit();
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> worker.checkReadiness().healthy());
            await().atMost(Duration.ofSeconds(10)).until(() -> gauge("outbox.db.oldest_transaction_age") == 0.0);
        }
    }

    @Test
    @DisplayName("a backlog the broker refuses makes the pending-age gauge grow and readiness name the broker; "
            + "draining it heals both")
    void stuckBacklogGrowsLag(@TempDir Path dir) throws Exception {
        HealthConfig health = new HealthConfig(Duration.ofSeconds(1), Duration.ZERO, Optional.empty());
        publisher.setDown(true);
        try (OutboxWorker worker = worker(health)) {
            database.append(5, "order.placed");
            worker.start();

            await().atMost(Duration.ofSeconds(30)).until(() -> gauge("outbox.events.oldest_pending_age") > 1.0);
            double first = gauge("outbox.events.oldest_pending_age");
            await().atMost(Duration.ofSeconds(30)).until(() -> gauge("outbox.events.oldest_pending_age") > first + 1.0);
            assertThat(registry.get("outbox.events.failed")
                            .tag("reason", "retryable")
                            .counter()
                            .count())
                    .as("the relay keeps trying")
                    .isPositive();
            assertThat(registry.get("outbox.events.rows")
                                    .tag("status", "pending")
                                    .gauge()
                                    .value()
                            + registry.get("outbox.events.rows")
                                    .tag("status", "in_flight")
                                    .gauge()
                                    .value())
                    .isEqualTo(5.0);
            // the events wait for their retries, which is not lag: the broker's own check is what fails
            HealthCheck ready = worker.checkReadiness();
            assertThat(ready.healthy()).isFalse();
            assertThat(ready.detail()).contains("broker: DOWN for").contains("(connection refused)");
            // between the relay's backed-off attempts they are retrying or eligible again
            assertThat(status(dir, "outbox.health.max.lag=1s"))
                    .containsPattern("(?m)^retrying +[0-5]$")
                    .containsPattern("(?m)^eligible +[0-5]$");

            publisher.setDown(false);
            await().atMost(Duration.ofSeconds(30)).until(() -> gauge("outbox.events.oldest_pending_age") == 0.0);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> worker.checkReadiness().healthy());
            // the row counts come from the gauges' own poll, which may follow the readiness probe
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(registry.get("outbox.events.rows")
                                    .tag("status", "sent")
                                    .gauge()
                                    .value())
                            .isEqualTo(5.0));
        }
    }

    @Test
    @DisplayName("append-only layout: the state table's dead rows show in its own gauges and status line; the size is "
            + "every table's")
    void appendLogTablesShowTheirOwnStatistics(@TempDir Path dir) throws Exception {
        String state = database.table + "_state";
        try (Connection connection = database.dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            // autovacuum off on the state table's partitions: the dead rows stay until the test ends
            for (String partition : List.of("_state_kept", "_state_0", "_state_1")) {
                statement.execute("ALTER TABLE " + database.table + partition + " SET (autovacuum_enabled = false)");
            }
        }
        int events = 500;
        database.append(events, "order.placed");
        Instant now = Instant.now();
        UUID first = UUID.randomUUID();
        List<OutboxEvent> leased = database.store.lease(first, events, now);
        database.store.markRetry(
                first,
                leased.stream()
                        .map(e -> new RetryMark(e.id(), "broker down", now.plusSeconds(1)))
                        .toList(),
                now);
        UUID second = UUID.randomUUID();
        List<OutboxEvent> again = database.store.lease(second, events, now.plusSeconds(2));
        database.store.markPublished(second, again.stream().map(OutboxEvent::id).toList(), now.plusSeconds(3));
        assertThat(again).hasSize(events);

        PostgresHealthProbe probe = PostgresHealthProbe.create(
                database.dataSource, database.table, StoreLayout.APPEND_LOG, Optional.of(database.inboxTable));
        DatabaseHealthMonitor monitor = new DatabaseHealthMonitor(
                database.store, probe, HealthConfig.ofDefaults(), Clock.systemUTC(), registry, POLL);
        // the store's sessions have ended; their statistics reach the shared ones shortly after
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
            monitor.poll();
            assertThat(registry.get("outbox.relation.dead_tuples")
                            .tag("relation", state)
                            .gauge()
                            .value())
                    .isGreaterThanOrEqualTo(events / 2.0);
        });
        double log = registry.get("outbox.relation.size")
                .tag("relation", database.table)
                .gauge()
                .value();
        assertThat(log).as("the log's partitions").isPositive();
        double total = 0;
        for (String relation : probe.outboxTables()) {
            total += registry.get("outbox.relation.size")
                    .tag("relation", relation)
                    .gauge()
                    .value();
        }
        assertThat(gauge("outbox.table.size")).isEqualTo(total).isGreaterThan(log);
        assertThat(gauge("outbox.table.dead_tuples")).isGreaterThanOrEqualTo(events / 2.0);

        String status = status(dir, "outbox.health.max.lag=0s", ExitCodes.OK);
        assertThat(status)
                .containsPattern("(?m)^table_size_bytes +[1-9]\\d*$")
                .containsPattern(
                        "(?m)^table_stats +" + database.table + ": live [1-9]\\d*, dead \\d+, size_bytes [1-9]")
                .containsPattern("(?m)^table_stats +" + state + ": live \\d+, dead [1-9]\\d+, size_bytes [1-9]")
                .contains("table_stats          " + database.table + "_lease: ")
                .contains("table_stats          " + database.table + "_position: ")
                .contains("table_stats          " + database.table + "_sent: ")
                .contains("table_stats          " + database.table + "_floor: ");
    }

    /** Runs {@code outbox-worker status} in process against the test's database and returns what it printed. */
    private String status(Path dir, String extraSetting) throws Exception {
        // both calls come while a threshold is breached: status says not ready
        return status(dir, extraSetting, ExitCodes.NOT_READY);
    }

    private String status(Path dir, String extraSetting, int expectedExit) throws Exception {
        Path file = dir.resolve("outbox-" + UUID.randomUUID() + ".properties");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "outbox.db.url=" + database.url,
                        "outbox.db.user=" + database.postgres.user(),
                        "outbox.db.password=" + database.postgres.password(),
                        "outbox.table=" + database.table,
                        "outbox.health.inbox.table=" + database.inboxTable,
                        extraSetting,
                        ""));
        StringWriter out = new StringWriter();
        CommandLine commandLine = OutboxCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(out, true));
        int exit = commandLine.execute("status", "--config", file.toString());
        assertThat(exit).as(out.toString()).isEqualTo(expectedExit);
        return out.toString() + "\n(at " + Instant.now() + ")";
    }
}
