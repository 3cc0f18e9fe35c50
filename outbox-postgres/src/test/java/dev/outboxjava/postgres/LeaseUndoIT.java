package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.RelayResult;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.RecordingPublisher;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The store commits a lease without waiting for the WAL flush, so a database crash can undo a lease
 * whose events the broker already has. This makes that happen on purpose, on a PostgreSQL the test
 * owns: the WAL writer is frozen so the lease's commit stays in shared memory, the events are
 * published, and the server crashes before anything flushes the WAL. The crash undoes the lease, the
 * events are pending again, and the relay publishes them again: a duplicate with the same id, never
 * a loss.
 */
@DisplayName("A lease undone by a database crash")
class LeaseUndoIT {

    private static final String TABLE = "outbox_events";

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    private static PostgresOutboxStore store(CrashablePostgres postgres) {
        return PostgresOutboxStore.create(
                postgres.jdbcUrl(),
                "postgres",
                "",
                PostgresOutboxConfig.builder()
                        .layout(StoreLayout.IN_PLACE)
                        .tableName(TABLE)
                        .wakeUpMode(WakeUpMode.NONE)
                        .maximumPoolSize(2)
                        .build());
    }

    private Relay relay(PostgresOutboxStore store, RecordingPublisher broker) {
        return new Relay(
                store,
                broker,
                new RelayConfig(100, Duration.ofSeconds(10)),
                RetryPolicy.ofDefaults(),
                clock,
                RelayListener.NONE);
    }

    @Test
    @DisplayName("a lease, a publish, then a crash before the WAL flush: the events are published again with the "
            + "same ids and all end up sent")
    void aLeaseUndoneAfterThePublishMeansADuplicateNeverALoss() throws Exception {
        Path binaries = CrashablePostgres.binaries().orElse(null);
        assumeTrue(
                binaries != null,
                "needs the PostgreSQL server binaries (pg_config --bindir, or "
                        + "-Doutbox.test.pg-bin=DIR) and, when run as root, a postgres OS user");
        RecordingPublisher broker = new RecordingPublisher();
        List<OutboxEvent> events = TestEvents.events(clock, 5);
        List<UUID> ids = events.stream().map(OutboxEvent::id).toList();

        try (CrashablePostgres postgres = CrashablePostgres.start(binaries)) {
            long walWriter;
            try (PostgresOutboxStore store = store(postgres)) {
                store.ensureSchema();
                store.transactional().inTransaction(connection -> events); // a synchronous, durable commit
                walWriter = postgres.walWriterPid();
                postgres.freezeWalWriter();

                Relay.Batch batch = relay(store, broker).leaseAndPublish();

                assertThat(batch.size()).isEqualTo(5);
                await().atMost(Duration.ofSeconds(30)).until(() -> broker.size() == 5);
                assertThat(store.countByStatus())
                        .as("leased before the crash")
                        .containsEntry(EventStatus.IN_FLIGHT, 5L);
                postgres.crash(walWriter); // before the relay marks the batch: the broker has every event
            }
            await().atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> postgres.recoveredFrom(walWriter));

            try (PostgresOutboxStore store = store(postgres)) {
                Map<EventStatus, Long> afterCrash = store.countByStatus();
                assertThat(afterCrash.getOrDefault(EventStatus.PENDING, 0L))
                        .as("the crash undid the lease; log:\n%s", postgres.log())
                        .isEqualTo(5L);
                assertThat(afterCrash.getOrDefault(EventStatus.IN_FLIGHT, 0L)).isZero();

                Relay relay = relay(store, broker);
                RelayResult result = relay.complete(relay.leaseAndPublish());

                assertThat(result.published()).isEqualTo(5);
                assertThat(store.countByStatus().getOrDefault(EventStatus.SENT, 0L))
                        .as("none lost")
                        .isEqualTo(5L);
            }
        }
        assertThat(broker.publishedIds()).containsOnlyElementsOf(ids).hasSize(10);
        assertThat(ids)
                .allSatisfy(id ->
                        assertThat(broker.timesPublished(id)).as("event %s", id).isEqualTo(2));
    }
}
