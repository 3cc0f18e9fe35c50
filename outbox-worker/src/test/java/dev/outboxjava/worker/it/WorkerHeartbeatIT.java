package dev.outboxjava.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.port.WorkerHeartbeat;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import dev.outboxjava.worker.testsupport.OutboxTable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The workers' heartbeats against the real PostgreSQL: two workers of one table are both listed with what
 * they are, one that stops cleanly disappears, one that stopped beating without a word is listed as gone.
 */
@DisplayName("Worker heartbeats")
class WorkerHeartbeatIT {

    private PostgresFixture postgres;
    private OutboxTable table;

    @BeforeEach
    void fresh() {
        postgres = PostgresFixture.shared();
        table = new OutboxTable(postgres);
    }

    @AfterEach
    void cleanUp() {
        table.close();
    }

    private OutboxWorker worker(int relayThreads) {
        DataSource database = PlainDataSources.simple(postgres.jdbcUrl(), postgres.user(), postgres.password());
        return Guice.createInjector(
                        new OutboxWorkerModule(OutboxWorkerConfig.builder()
                                .relayThreads(relayThreads)
                                .pollInterval(Duration.ofMillis(100))
                                .heartbeatInterval(Duration.ofMillis(200))
                                .build()),
                        new PostgresStoreModule(database, PlainDataSources.keepSent(table.name, WakeUpMode.NONE)),
                        new AbstractModule() {
                            @Override
                            protected void configure() {
                                bind(Publisher.class).toInstance(new RecordingPublisher());
                            }
                        })
                .getInstance(OutboxWorker.class);
    }

    @Test
    @DisplayName("two workers of one table are both listed; the one that stops disappears; one that stopped "
            + "beating is gone")
    void everyWorkerIsListed() throws Exception {
        try (OutboxWorker first = worker(1);
                OutboxWorker second = worker(3)) {
            first.start();
            second.start();
            table.append(5, "orders", "order.placed");

            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(table.store.workers(10))
                            .extracting(WorkerHeartbeat::relayThreads)
                            .containsExactlyInAnyOrder(1, 3));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> table.store.workers(10).stream()
                            .anyMatch(w -> w.lastLeaseAt().isPresent()));
            WorkerHeartbeat one = table.store.workers(10).get(0);
            assertThat(one.layout()).isEqualTo("append-only");
            assertThat(one.ordering()).isIn("per key", "none");
            assertThat(one.process()).contains("@");
            assertThat(one.isGone(Instant.now())).isFalse();

            second.close();
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(table.store.workers(10))
                            .extracting(WorkerHeartbeat::relayThreads)
                            .containsExactly(1));

            // a worker killed a minute ago: its last beat stays, and it is gone three intervals later
            Instant minuteAgo = Instant.now().minus(Duration.ofMinutes(1));
            table.store
                    .heartbeats()
                    .beat(new WorkerHeartbeat(
                            UUID.randomUUID(),
                            "4242@elsewhere",
                            "elsewhere",
                            "development build",
                            2,
                            "none",
                            "in place",
                            minuteAgo.minusSeconds(60),
                            minuteAgo,
                            Duration.ofSeconds(10),
                            Optional.empty(),
                            Optional.of(new WorkerHeartbeat.Failure(minuteAgo, "database: connection refused"))));
            List<WorkerHeartbeat> listed = table.store.workers(10);
            assertThat(listed).hasSize(2);
            assertThat(listed.stream().filter(w -> w.isGone(Instant.now())))
                    .singleElement()
                    .satisfies(gone -> {
                        assertThat(gone.process()).isEqualTo("4242@elsewhere");
                        assertThat(gone.lastError().orElseThrow().detail()).isEqualTo("database: connection refused");
                    });

            // beats forget workers gone for longer than a day, and only those
            assertThat(table.store.heartbeats().forgetBeatenBefore(minuteAgo.minusSeconds(1)))
                    .isZero();
            assertThat(table.store.heartbeats().forgetBeatenBefore(minuteAgo.plusSeconds(1)))
                    .isEqualTo(1);
        }
    }
}
