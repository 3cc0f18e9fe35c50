package dev.outboxjava.examples.embedded;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.worker.KafkaPublisherModule;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import javax.sql.DataSource;

/**
 * The relay inside a plain-Java service, built from the three modules such a service adds:
 * {@code outbox-postgres}, {@code outbox-worker} and {@code outbox-broker-kafka}. Both ways take the
 * service's own {@link DataSource} and the {@link PostgresOutboxConfig} it appends with; the README and
 * docs/worker.md show these methods, and {@code EmbeddedRelayIT} runs them against PostgreSQL and Kafka.
 */
public final class EmbeddedRelay {

    private EmbeddedRelay() {}

    /** With the worker's Guice modules: one store module, one publisher module. */
    public static OutboxWorker withGuice(DataSource dataSource, PostgresOutboxConfig outboxConfig, String kafka) {
        // tag::embedded-guice[]
        Injector injector = Guice.createInjector(
                new OutboxWorkerModule(OutboxWorkerConfig.ofDefaults()), // relay, sweeper, cleaner
                new PostgresStoreModule(dataSource, outboxConfig), // the config you append with
                new KafkaPublisherModule(KafkaPublisherConfig.builder() // or RabbitMqPublisherModule
                        .bootstrapServers(kafka)
                        .build()));
        OutboxWorker worker = injector.getInstance(OutboxWorker.class);
        worker.start(); // worker.close() on shutdown
        // end::embedded-guice[]
        return worker;
    }

    /** Without Guice, from the worker's builder. */
    public static OutboxWorker withBuilder(DataSource dataSource, PostgresOutboxConfig outboxConfig, String kafka) {
        // tag::embedded-builder[]
        OutboxWorker worker = OutboxWorker.builder()
                .postgres(dataSource, outboxConfig) // the store, and the wake-up its mode implies
                .publisher(KafkaPublisher.create(
                        KafkaPublisherConfig.builder().bootstrapServers(kafka).build()))
                .config(OutboxWorkerConfig.builder().relayThreads(2).build()) // invalid values fail here
                .build();
        worker.start(); // worker.close() also closes the publisher
        // end::embedded-builder[]
        return worker;
    }
}
