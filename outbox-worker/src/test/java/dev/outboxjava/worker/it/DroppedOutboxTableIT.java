package dev.outboxjava.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import dev.outboxjava.worker.internal.LogCapture;
import dev.outboxjava.worker.testsupport.OutboxTable;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The outbox table dropped under a running worker, against the real PostgreSQL: the worker says the table
 * is missing and how to create it (not "database unavailable"), readiness turns DOWN with that message, and
 * once the table exists again the worker relays and is ready again.
 */
@DisplayName("The outbox table dropped under a running worker")
class DroppedOutboxTableIT {

    private PostgresFixture postgres;
    private OutboxTable table;
    private LogCapture outages;
    private final RecordingPublisher publisher = new RecordingPublisher();

    @BeforeEach
    void fresh() {
        postgres = PostgresFixture.shared();
        table = new OutboxTable(postgres);
        outages = new LogCapture("dev.outboxjava.worker.outage");
    }

    @AfterEach
    void cleanUp() {
        outages.close();
        table.close();
    }

    private OutboxWorker worker() {
        DataSource database = PlainDataSources.simple(postgres.jdbcUrl(), postgres.user(), postgres.password());
        return Guice.createInjector(
                        new OutboxWorkerModule(OutboxWorkerConfig.builder()
                                .pollInterval(Duration.ofMillis(100))
                                .metricsPollInterval(Duration.ofMillis(200))
                                .sweepInterval(Duration.ofMillis(200))
                                .backoffInitial(Duration.ofMillis(100))
                                .backoffMax(Duration.ofMillis(500))
                                .build()),
                        new PostgresStoreModule(database, PlainDataSources.keepSent(table.name, WakeUpMode.NONE)),
                        new AbstractModule() {
                            @Override
                            protected void configure() {
                                bind(Publisher.class).toInstance(publisher);
                            }
                        })
                .getInstance(OutboxWorker.class);
    }

    @Test
    @DisplayName("logs once that the table is missing and how to create it, turns readiness DOWN with that, "
            + "and relays and is ready again once the table is back")
    void missingTableIsNamedAndNotReady() throws Exception {
        try (OutboxWorker worker = worker()) {
            worker.start();
            List<UUID> before = table.append(3, "orders", "order.placed");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> publisher.publishedIds().containsAll(before));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> worker.checkReadiness().healthy());

            // the outbox's tables dropped, all of them (the append-only layout keeps side tables beside the log)
            dropSchema();
            postgres.execute("CREATE SCHEMA " + table.schema);

            HealthCheck down =
                    await().atMost(Duration.ofSeconds(30)).until(worker::checkReadiness, check -> !check.healthy());
            assertThat(down.detail())
                    .as("readiness names the missing table and how to create it")
                    .contains("the outbox table " + table.name + " does not exist")
                    .contains("schema")
                    .contains("classpath:db/outbox/postgresql/");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> outages.atLeast(Level.WARN).stream()
                            .anyMatch(line -> line.contains("the outbox table " + table.name + " does not exist")));
            // the loops keep ticking against the missing table: still one line, and never "unavailable"
            await().pollDelay(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> true);
            List<String> lines = outages.atLeast(Level.WARN);
            assertThat(lines.stream().filter(line -> line.contains("does not exist")))
                    .as(String.join("\n", lines))
                    .hasSize(1);
            // the DROP itself may fail a loop's statement first (a deadlock with it): from the missing table on,
            // the worker never calls it a database outage
            List<String> sinceMissing = lines.subList(
                    lines.indexOf(lines.stream()
                            .filter(line -> line.contains("does not exist"))
                            .findFirst()
                            .orElseThrow()),
                    lines.size());
            assertThat(sinceMissing)
                    .as("a missing table is not a database outage")
                    .noneMatch(line -> line.startsWith("database unavailable"));
            assertThat(sinceMissing.get(0)).startsWith("outbox table missing");
            assertThat(worker.isRunning()).as("the loops keep running").isTrue();

            table.store.ensureSchema();
            List<UUID> after = table.append(3, "orders", "order.placed");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> publisher.publishedIds().containsAll(after));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> worker.checkReadiness().healthy());
            assertThat(outages.atLeast(Level.INFO)).anyMatch(line -> line.startsWith("outbox table present again"));
        }
    }

    /**
     * Drops the outbox's schema while the worker's loops use its tables: the DROP may be the one a deadlock with
     * a loop's statement picks to fail, then it is tried again, as an operator would.
     */
    private void dropSchema() {
        for (int attempt = 1; ; attempt++) {
            try {
                postgres.execute("DROP SCHEMA " + table.schema + " CASCADE");
                return;
            } catch (IllegalStateException e) {
                if (attempt == 5 || !String.valueOf(e.getMessage()).contains("deadlock detected")) {
                    throw e;
                }
            }
        }
    }
}
