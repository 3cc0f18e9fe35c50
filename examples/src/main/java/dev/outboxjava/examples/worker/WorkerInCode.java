package dev.outboxjava.examples.worker;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.TransactionalOutbox;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.worker.KafkaPublisherModule;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The embedded worker configured in code instead of {@code OUTBOX_*} settings: once with Guice, once
 * without. The documentation shows these methods; they compile with the build, so the snippets stay true.
 */
public final class WorkerInCode {

    private WorkerInCode() {}

    /**
     * A worker with Guice, configured in code, relaying to Kafka with per-key ordering, on the
     * application's own data source (its pool, or any other {@link DataSource}).
     */
    public static OutboxWorker withGuice(DataSource dataSource, String kafka) {
        // tag::worker-in-code[]
        PostgresOutboxConfig outbox = PostgresOutboxConfig.builder() // ONE configuration, appender and worker
                .tableName("outbox_events")
                .completionMode(CompletionMode.KEEP_SENT)
                .ordering(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY))
                .wakeUpMode(WakeUpMode.NOTIFY_AFTER_COMMIT)
                .build();
        OutboxWorkerConfig config = OutboxWorkerConfig.builder()
                .relay(new RelayConfig(1000, Duration.ofSeconds(20))) // the ordering is the store's
                .relayThreads(2)
                .build(); // invalid values fail here, each by its name

        Injector injector = Guice.createInjector(
                new OutboxWorkerModule(config),
                new PostgresStoreModule(dataSource, outbox), // table, ordering, wake-up: LISTEN here
                new KafkaPublisherModule(
                        KafkaPublisherConfig.builder().bootstrapServers(kafka).build()));
        OutboxWorker worker = injector.getInstance(OutboxWorker.class);
        worker.start(); // worker.close() on shutdown
        // end::worker-in-code[]
        return worker;
    }

    /** A worker without Guice, on your own data source, woken in-process by the appender's commits. */
    public static TransactionalOutbox withoutGuice(DataSource dataSource, String kafka) {
        // tag::worker-without-guice[]
        PostgresOutboxConfig outbox = PostgresOutboxConfig.builder() // the appender's configuration too
                .wakeUpMode(WakeUpMode.IN_PROCESS)
                .build(); // appender and relay share this JVM
        KafkaPublisher publisher = KafkaPublisher.create(
                KafkaPublisherConfig.builder().bootstrapServers(kafka).build());
        OutboxWorker worker = OutboxWorker.builder()
                .postgres(dataSource, outbox) // the store, and the wake-up its mode implies
                .publisher(publisher)
                .config(OutboxWorkerConfig.ofDefaults())
                .build();
        worker.start(); // worker.close() also closes the publisher
        TransactionalOutbox appender = TransactionalOutbox.create(dataSource, outbox)
                .afterCommit(worker.wakeUp()::signal); // each commit that appends wakes the relay
        // end::worker-without-guice[]
        return appender;
    }
}
