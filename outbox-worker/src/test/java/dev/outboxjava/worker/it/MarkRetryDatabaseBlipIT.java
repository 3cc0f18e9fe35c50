package dev.outboxjava.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.SweeperConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.internal.LogCapture;
import dev.outboxjava.worker.testsupport.OutboxTable;
import dev.outboxjava.worker.testsupport.TcpProxy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The database blips (its connections cut for a moment, through a proxy in front of the shared
 * PostgreSQL) right after the broker acknowledged a batch: the relay marks it on a fresh connection
 * once the database answers again, under the same lease, so the batch is not published a second time
 * after the lease expires.
 */
@DisplayName("A worker whose database blips between the broker's acknowledgement and the mark")
class MarkRetryDatabaseBlipIT {

    private static final Duration BLIP = Duration.ofMillis(1500);
    /** Short, so that without the retry the sweeper would hand the batch out again within the test. */
    private static final Duration LEASE_TIMEOUT = Duration.ofSeconds(5);

    @Test
    @DisplayName("marks the published batch once the database is back: every event sent, none published twice")
    void marksAfterTheBlip() throws Exception {
        PostgresFixture postgres = PostgresFixture.shared();
        URI database = URI.create(postgres.jdbcUrl().substring("jdbc:".length()));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (OutboxTable table = new OutboxTable(postgres);
                TcpProxy proxy =
                        new TcpProxy(database.getHost(), database.getPort() == -1 ? 5432 : database.getPort())) {
            List<java.util.UUID> ids = table.append(100, "orders", "order.placed");
            HikariDataSource pool = pool(
                    "jdbc:postgresql://127.0.0.1:" + proxy.port() + database.getPath(),
                    postgres.user(),
                    postgres.password());
            PostgresOutboxStore store = PostgresOutboxStore.create(
                    pool,
                    PlainDataSources.keepSent(table.name).toBuilder()
                            .ordering(Ordering.none())
                            .build());
            BlipAfterAck publisher = new BlipAfterAck(proxy);
            OutboxWorker worker = OutboxWorker.builder()
                    .store(store)
                    .publisher(publisher)
                    .meterRegistry(registry)
                    .closeOnShutdown(List.of(pool))
                    .config(OutboxWorkerConfig.builder()
                            .relay(new RelayConfig(100, Duration.ofSeconds(2)))
                            .sweeper(new SweeperConfig(LEASE_TIMEOUT, 1000, 10))
                            .sweepInterval(Duration.ofMillis(500))
                            .pollInterval(Duration.ofMillis(200))
                            .backoffInitial(Duration.ofMillis(100))
                            .backoffMax(Duration.ofMillis(500))
                            .build())
                    .build();
            try (LogCapture relayLog = new LogCapture("dev.outboxjava.core.relay.Relay")) {
                worker.start();

                // without the retry, the batch would stay in flight until its lease expired and go out again
                await().atMost(Duration.ofSeconds(60)).until(() -> table.count(EventStatus.SENT) == 100);

                assertThat(publisher.blipped).as("the blip happened").isTrue();
                assertThat(publisher.recording.publishedIds())
                        .as("each event published once")
                        .doesNotHaveDuplicates()
                        .containsExactlyInAnyOrderElementsOf(ids);
                assertThat(relayLog.atLeast(Level.INFO)).anyMatch(line -> line.contains("succeeded on attempt"));
                assertThat(registry.counter("outbox.events.lease_lost").count()).isZero();
                assertThat(registry.counter("outbox.events.published").count()).isEqualTo(100);
            } finally {
                worker.close();
            }
        }
    }

    /**
     * A pool like the relay application's, except that a connection is awaited for 250 ms instead of 5 s: so the mark
     * fails while the database is away (rather than the pool absorbing a blip shorter than its wait),
     * whichever connection it gets.
     */
    private static HikariDataSource pool(String url, String user, String password) {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(url);
        hikari.setUsername(user);
        hikari.setPassword(password);
        hikari.setMaximumPoolSize(4);
        hikari.setMinimumIdle(1);
        hikari.setConnectionTimeout(250);
        hikari.setInitializationFailTimeout(-1);
        hikari.setPoolName("mark-retry-blip");
        hikari.addDataSourceProperty("connectTimeout", "5");
        return new HikariDataSource(hikari);
    }

    /** Acknowledges every batch; right after the first one, cuts the database connections for {@link #BLIP}. */
    private static final class BlipAfterAck implements Publisher {
        final RecordingPublisher recording = new RecordingPublisher();
        final AtomicBoolean blippedOnce = new AtomicBoolean();
        volatile boolean blipped;
        private final TcpProxy proxy;

        BlipAfterAck(TcpProxy proxy) {
            this.proxy = proxy;
        }

        @Override
        public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
            CompletableFuture<List<PublishOutcome>> acknowledged = recording.publish(batch, timeout);
            if (blippedOnce.compareAndSet(false, true)) {
                proxy.cut();
                blipped = true;
                CompletableFuture.delayedExecutor(BLIP.toMillis(), TimeUnit.MILLISECONDS)
                        .execute(proxy::restore);
            }
            return acknowledged;
        }

        @Override
        public HealthCheck checkHealth() {
            return HealthCheck.up("test broker");
        }

        @Override
        public void close() {
            recording.close();
        }
    }
}
