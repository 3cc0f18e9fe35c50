package dev.outboxjava.it.faults.suite;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.SweeperConfig;
import dev.outboxjava.it.faults.HaltAfterAck;
import dev.outboxjava.it.faults.InJvmRelay;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.rabbitmq.RabbitMqPublisher;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

/**
 * A relay process assembled from the library's pieces (PostgreSQL store, Kafka or RabbitMQ publisher, the
 * core relay and sweeper): the Kafka fault runs' relays, beside the worker's own processes of the RabbitMQ
 * runs, and every run's relays that halt after the broker's acknowledgement. Configured by {@code FAULTS_*} environment variables
 * (see {@link FaultScenario}); runs until killed (SIGTERM closes it gracefully). With
 * {@code FAULTS_HALT_AFTER_ACK=true} it halts right after the broker acknowledged its first batch, before the
 * mark ({@link HaltAfterAck}): the crash-after-ack fault with a real process.
 */
public final class FaultRelayMain {

    private FaultRelayMain() {}

    public static void main(String[] args) throws InterruptedException {
        String name = env("FAULTS_RELAY_NAME");
        Ordering ordering = "per_key".equals(env("FAULTS_ORDERING"))
                ? Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY)
                : Ordering.none();
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(env("FAULTS_DB_URL"));
        hikari.setUsername(env("FAULTS_DB_USER"));
        hikari.setPassword(System.getenv().getOrDefault("FAULTS_DB_PASSWORD", ""));
        hikari.setMaximumPoolSize(4);
        hikari.setMinimumIdle(1);
        hikari.setConnectionTimeout(5_000);
        hikari.setInitializationFailTimeout(-1);
        hikari.addDataSourceProperty("ApplicationName", env("FAULTS_APPLICATION_NAME"));
        HikariDataSource pool = new HikariDataSource(hikari);
        PostgresOutboxStore store = PostgresOutboxStore.create(
                pool,
                PostgresOutboxConfig.builder()
                        .tableName(env("FAULTS_TABLE"))
                        .ordering(ordering)
                        .layout(StoreLayout.valueOf(env("FAULTS_LAYOUT").toUpperCase(Locale.ROOT)))
                        .build());
        Duration publishTimeout = Duration.ofMillis(Long.parseLong(env("FAULTS_PUBLISH_TIMEOUT_MS")));
        InJvmRelay.Options options = new InJvmRelay.Options(
                new RelayConfig(Integer.parseInt(env("FAULTS_BATCH_SIZE")), publishTimeout, ordering),
                RetryPolicy.builder()
                        .initialDelay(Duration.ofMillis(200))
                        .maxDelay(Duration.ofSeconds(2))
                        .build(),
                new SweeperConfig(Duration.ofMillis(Long.parseLong(env("FAULTS_LEASE_TIMEOUT_MS"))), 1_000, 10),
                Duration.ofSeconds(1),
                Duration.ofMillis(200),
                Integer.parseInt(env("FAULTS_THREADS")),
                Clock.systemUTC());
        InJvmRelay relay = InJvmRelay.start(name, store, publisher(name), options, List.of(store, pool));
        if ("true".equals(System.getenv("FAULTS_HALT_AFTER_ACK"))) {
            HaltAfterAck.install(relay.publisher());
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            relay.close();
            stopped.countDown();
        }));
        stopped.await();
    }

    private static Publisher publisher(String name) {
        if ("kafka".equals(env("FAULTS_BROKER"))) {
            return KafkaPublisher.create(KafkaPublisherConfig.builder()
                    .bootstrapServers(env("FAULTS_KAFKA_BOOTSTRAP_SERVERS"))
                    .property("client.id", "faults-" + name)
                    .property("max.block.ms", 2_000)
                    .build());
        }
        return new RabbitMqPublisher(RabbitMqPublisherConfig.builder()
                .uri(env("FAULTS_RABBITMQ_URI"))
                .connectionName(env("FAULTS_RABBITMQ_CONNECTION_NAME"))
                .recoveryInterval(Duration.ofSeconds(1))
                .build());
    }

    private static String env(String name) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("environment variable " + name + " is required");
        }
        return value;
    }
}
