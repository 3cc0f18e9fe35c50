package dev.outboxjava.examples.demo;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Module;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.relayapp.BrokerConfig;
import dev.outboxjava.relayapp.BrokerKind;
import dev.outboxjava.relayapp.DatabaseConfig;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.worker.KafkaPublisherModule;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import dev.outboxjava.worker.RabbitMqPublisherModule;
import java.util.concurrent.CountDownLatch;

/**
 * A relay as its own process, wired with the worker's Guice modules and configured by
 * {@code OUTBOX_*} environment variables. The demo starts it, kills it with SIGKILL mid-drain and
 * starts another; on SIGTERM it shuts down gracefully (finishes its batch, releases the rest).
 */
public final class RelayProcess {

    private RelayProcess() {}

    /** Runs until the process is terminated. */
    public static void main(String[] args) throws InterruptedException {
        // The examples' quiet log configuration, unless the caller chose one (before any logger exists).
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "examples-logback.xml");
        }
        RelayAppConfig settings = RelayAppConfig.fromEnvironment();
        OutboxWorker worker = start(settings);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            worker.close();
                            stopped.countDown();
                        },
                        "relay-shutdown"));
        System.out.println("relay started (pid " + ProcessHandle.current().pid() + ")");
        stopped.await();
    }

    /** Builds the worker from the settings with Guice and starts it. */
    static OutboxWorker start(RelayAppConfig settings) {
        DatabaseConfig database = settings.requireDatabase();
        HikariDataSource pool = new HikariDataSource(); // the service's own pool
        pool.setJdbcUrl(database.url());
        pool.setUsername(database.user());
        pool.setPassword(database.password());
        pool.setMaximumPoolSize(database.poolSize());
        Injector injector = Guice.createInjector(
                new OutboxWorkerModule(settings.worker()), // relay, sweeper, cleaner
                new PostgresStoreModule(
                        pool,
                        PostgresOutboxConfig.builder()
                                .tableName(database.table())
                                .completionMode(database.completionMode())
                                .wakeUpMode(settings.wakeUp())
                                .build()),
                publisherModule(settings.requireBroker())); // Kafka or RabbitMQ
        OutboxWorker worker = injector.getInstance(OutboxWorker.class);
        worker.start();
        return worker;
    }

    private static Module publisherModule(BrokerConfig broker) {
        if (broker.kind() == BrokerKind.KAFKA) {
            return new KafkaPublisherModule(KafkaPublisherConfig.builder()
                    .bootstrapServers(broker.kafkaBootstrapServers())
                    .property("client.id", broker.kafkaClientId())
                    .build());
        }
        return new RabbitMqPublisherModule(RabbitMqPublisherConfig.builder()
                .uri(broker.rabbitMqUri())
                .connectionName(broker.rabbitMqConnectionName())
                .build());
    }
}
