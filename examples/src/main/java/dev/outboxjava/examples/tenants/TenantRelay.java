package dev.outboxjava.examples.tenants;

import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.worker.MultiOutboxConfig;
import dev.outboxjava.worker.MultiOutboxWorker;
import dev.outboxjava.worker.OutboxTables;
import dev.outboxjava.worker.OutboxWorkerConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * One worker for the outboxes of many tenants: every {@code tenant_*} schema of the main database that
 * holds an {@code outbox_events} table (found again while it runs), and the billing database's outbox.
 */
public final class TenantRelay {

    private TenantRelay() {}

    /** Starts the worker; the caller closes it. */
    public static MultiOutboxWorker start(
            DataSource dataSource, DataSource billingDataSource, Publisher publisher, MeterRegistry registry) {
        // tag::many-outboxes[]
        MultiOutboxWorker worker = MultiOutboxWorker.builder()
                .database(
                        "main",
                        dataSource,
                        OutboxTables.discovered(
                                Pattern.compile("tenant_.*"),
                                PostgresOutboxConfig.builder()
                                        .tableName("outbox_events")
                                        .build()))
                .database(
                        "billing",
                        billingDataSource,
                        OutboxTables.listed(PostgresOutboxConfig.builder()
                                .tableName("billing.outbox_events")
                                .build()))
                .publisher(publisher)
                .config(OutboxWorkerConfig.builder().relayThreads(2).build())
                .multiConfig(MultiOutboxConfig.builder()
                        .discoveryInterval(Duration.ofSeconds(30))
                        .build())
                .meterRegistry(registry)
                .build();
        worker.start();
        // end::many-outboxes[]
        return worker;
    }
}
