package dev.outboxjava.relayapp.internal;

import com.google.inject.Guice;
import com.google.inject.Stage;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.relayapp.DatabaseConfig;
import dev.outboxjava.relayapp.OutboxesConfig;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.worker.MultiOutboxWorker;
import dev.outboxjava.worker.OutboxTables;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;

/**
 * The standalone process's worker of many outboxes ({@code outbox.tables} or {@code outbox.discovery.schema.pattern}):
 * one pool for the database, one publisher, each outbox with the table settings of the process.
 */
public final class StandaloneOutboxes {

    private StandaloneOutboxes() {}

    /**
     * The worker for the settings, its meters (tagged {@code database}, {@code schema}, {@code table} per
     * outbox) in {@code registry}; closing it closes the publisher and the pool.
     *
     * @throws IllegalArgumentException when the settings name one table only ({@link RelayAppConfig#outboxes()} is empty)
     */
    public static MultiOutboxWorker worker(RelayAppConfig settings, MeterRegistry registry) {
        OutboxesConfig outboxes = settings.outboxes()
                .orElseThrow(() -> new IllegalArgumentException("the settings name one table, not many outboxes"));
        DatabaseConfig database = settings.requireDatabase();
        OutboxTables tables = tables(settings, outboxes);
        Publisher publisher = Guice.createInjector(
                        Stage.PRODUCTION,
                        StandaloneModules.brokerModule(
                                settings.requireBroker(), settings.worker().relayThreads()))
                .getInstance(Publisher.class);
        // the process's own pool, closed by the worker's close() after the loops and the LISTEN released it
        HikariDataSource pool = DataSources.pool(database);
        return MultiOutboxWorker.builder()
                .database(databaseName(database.url()), pool, tables)
                .publisher(publisher)
                .config(settings.worker())
                .multiConfig(outboxes.multi())
                .healthConfig(settings.health())
                .meterRegistry(registry)
                .closeOnShutdown(List.of(new PoolShutdown(pool)))
                .build();
    }

    /**
     * Creates the listed tables that are missing ({@code run --ensure-schema}), each as its store would.
     *
     * @throws IllegalArgumentException for a discovery rule, whose schemas are not known beforehand
     */
    public static void ensureSchemas(RelayAppConfig settings, javax.sql.DataSource dataSource) {
        OutboxesConfig outboxes = settings.outboxes().orElseThrow();
        if (outboxes.isDiscovered()) {
            throw new IllegalArgumentException("a discovery rule has no list of tables to create");
        }
        for (String table : outboxes.tables()) {
            PostgresOutboxStore.create(dataSource, storeConfig(settings, table)).ensureSchema();
        }
    }

    /**
     * The outboxes the worker relays, as it reads them: the operator commands resolve the same set (a
     * discovery rule against the database at the time the command runs), so they see what {@code run} sees.
     *
     * @throws IllegalArgumentException when the settings name one table only ({@link RelayAppConfig#outboxes()} is empty)
     */
    public static OutboxTables tables(RelayAppConfig settings) {
        OutboxesConfig outboxes = settings.outboxes()
                .orElseThrow(() -> new IllegalArgumentException("the settings name one table, not many outboxes"));
        return tables(settings, outboxes);
    }

    private static OutboxTables tables(RelayAppConfig settings, OutboxesConfig outboxes) {
        if (outboxes.isDiscovered()) {
            return OutboxTables.discovered(
                    outboxes.schemaPattern().orElseThrow(), storeConfig(settings, outboxes.table()));
        }
        return OutboxTables.listed(outboxes.tables().stream()
                .map(table -> storeConfig(settings, table))
                .toArray(PostgresOutboxConfig[]::new));
    }

    private static PostgresOutboxConfig storeConfig(RelayAppConfig settings, String table) {
        Ordering ordering = settings.worker().relay().ordering();
        return DataSources.storeConfig(settings.requireDatabase(), table, ordering, settings.wakeUp());
    }

    /** The database's name in the JDBC URL, which names it in the outboxes' meters and health details. */
    static String databaseName(String url) {
        String path = url.replaceFirst("\\?.*", "");
        String name = path.substring(path.lastIndexOf('/') + 1);
        return name.isEmpty() || name.contains(":") ? "default" : name;
    }
}
