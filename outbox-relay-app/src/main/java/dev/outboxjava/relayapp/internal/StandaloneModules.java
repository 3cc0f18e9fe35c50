package dev.outboxjava.relayapp.internal;

import com.google.inject.AbstractModule;
import com.google.inject.Module;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.multibindings.OptionalBinder;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.relayapp.BrokerConfig;
import dev.outboxjava.relayapp.DatabaseConfig;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.worker.KafkaPublisherModule;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import dev.outboxjava.worker.RabbitMqPublisherModule;
import dev.outboxjava.worker.WorkerResource;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Optional;

/** The modules of the standalone process, chosen by its settings: one store, one broker, Prometheus meters. */
public final class StandaloneModules {

    private StandaloneModules() {}

    /**
     * The modules for the settings, with the meters in {@code registry} (from {@link #prometheus(String)} for
     * the configured table, so the outbox's meters carry its tag).
     */
    public static List<Module> forSettings(RelayAppConfig settings, PrometheusMeterRegistry registry) {
        DatabaseConfig database = settings.requireDatabase();
        // the process's own pool, closed by the worker's close() after the loops and the wake-up released it
        HikariDataSource pool = DataSources.pool(database);
        return List.of(
                new OutboxWorkerModule(settings.worker()),
                new PostgresStoreModule(
                        pool,
                        DataSources.storeConfig(
                                database, settings.worker().relay().ordering(), settings.wakeUp())),
                brokerModule(settings.requireBroker(), settings.worker().relayThreads()),
                new dev.outboxjava.worker.observability.DatabaseHealthModule(settings.health()),
                new AbstractModule() {
                    @Override
                    protected void configure() {
                        OptionalBinder.newOptionalBinder(binder(), MeterRegistry.class)
                                .setBinding()
                                .toInstance(registry);
                        Multibinder.newSetBinder(binder(), AutoCloseable.class, WorkerResource.class)
                                .addBinding()
                                .toInstance(new PoolShutdown(pool));
                    }
                });
    }

    /** Tags every {@code outbox.*} meter with {@code table}; the JVM and process meters stay untagged. */
    static MeterFilter tableTag(String table) {
        Tag tag = Tag.of("table", table);
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                return id.getName().startsWith("outbox.") ? id.withTag(tag) : id;
            }
        };
    }

    /**
     * The process's registry: Prometheus text, with the JVM and process meters every Micrometer-based
     * service exports (memory, garbage collection, threads, classes, CPU, uptime, open file descriptors),
     * so the worker can be watched with the same dashboards as the services around it. The outbox's meters
     * get the tag {@code table}: every worker of a table exports the same table-wide figures, and dashboards
     * and alerts take one of them per table ({@code max by (table)}) instead of adding them up.
     */
    public static PrometheusMeterRegistry prometheus(String table) {
        return new ProcessRegistry(Optional.of(tableTag(table)));
    }

    /** {@link #prometheus(String)} without the table tag. */
    public static PrometheusMeterRegistry prometheus() {
        return new ProcessRegistry(Optional.empty());
    }

    /** Closing it also stops the garbage collection meters listening to the JVM's notifications. */
    private static final class ProcessRegistry extends PrometheusMeterRegistry {

        private final JvmGcMetrics gc = new JvmGcMetrics();

        ProcessRegistry(Optional<MeterFilter> filter) {
            super(PrometheusConfig.DEFAULT);
            // a filter configured after the first meter would not apply to it (Micrometer warns): filter first
            filter.ifPresent(config()::meterFilter);
            new ClassLoaderMetrics().bindTo(this);
            new JvmMemoryMetrics().bindTo(this);
            gc.bindTo(this);
            new JvmThreadMetrics().bindTo(this);
            new JvmInfoMetrics().bindTo(this);
            new ProcessorMetrics().bindTo(this);
            new UptimeMetrics().bindTo(this);
            new FileDescriptorMetrics().bindTo(this);
        }

        @Override
        public void close() {
            gc.close();
            super.close();
        }
    }

    /**
     * The publisher module for the configured broker; adapter validation errors name our keys. The
     * RabbitMQ publisher gets a channel for every relay thread, so no relay waits for another's
     * confirms before it can publish.
     */
    static Module brokerModule(BrokerConfig broker, int relayThreads) {
        return switch (broker.kind()) {
            case KAFKA ->
                new KafkaPublisherModule(KafkaPublisherConfig.builder()
                        .properties(broker.kafkaProperties())
                        .bootstrapServers(broker.kafkaBootstrapServers())
                        .property("client.id", broker.kafkaClientId())
                        .build());
            case RABBITMQ ->
                new RabbitMqPublisherModule(RabbitMqPublisherConfig.builder()
                        .uri(broker.rabbitMqUri())
                        .connectionName(broker.rabbitMqConnectionName())
                        .properties(broker.rabbitMqProperties())
                        .maxConcurrentBatches(
                                Math.max(relayThreads, RabbitMqPublisherConfig.DEFAULT_MAX_CONCURRENT_BATCHES))
                        .build());
        };
    }
}
