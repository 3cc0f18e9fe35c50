package dev.outboxjava.worker;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.worker.internal.DataSources;
import dev.outboxjava.worker.internal.PostgresNotifyWakeUp;
import java.util.Objects;

/**
 * Binds {@link OutboxStore} to a {@link PostgresOutboxStore} on a connection pool the worker owns
 * (closed by {@link OutboxWorker#close()}), and, with {@link WakeUpStrategy#NOTIFY}, a LISTEN
 * wake-up for the relay (it holds one connection of the pool). The store's per-key ordering is taken
 * from the relay settings of {@link OutboxWorkerModule}, so the two cannot disagree. Wiring only.
 */
public final class PostgresStoreModule extends AbstractModule {

    private final DatabaseConfig database;
    private final WakeUpStrategy wakeUp;

    /**
     * @param database connection, pool size, table and completion mode
     * @param wakeUp   whether the relay LISTENs for the table's NOTIFY besides polling
     */
    public PostgresStoreModule(DatabaseConfig database, WakeUpStrategy wakeUp) {
        this.database = Objects.requireNonNull(database, "database");
        this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp");
    }

    @Override
    protected void configure() {
        bind(DatabaseConfig.class).toInstance(database);
        bind(OutboxStore.class).to(PostgresOutboxStore.class);
        Multibinder.newSetBinder(binder(), AutoCloseable.class, WorkerResource.class).addBinding()
                .to(HikariDataSource.class);
        Multibinder<WakeUpSource> wakeUpSources = Multibinder.newSetBinder(binder(), WakeUpSource.class);
        if (wakeUp == WakeUpStrategy.NOTIFY) {
            wakeUpSources.addBinding().to(PostgresNotifyWakeUp.class);
        }
    }

    @Provides
    @Singleton
    HikariDataSource dataSource(DatabaseConfig config) {
        return DataSources.pool(config);
    }

    @Provides
    @Singleton
    PostgresOutboxConfig postgresConfig(DatabaseConfig config, OutboxWorkerConfig worker) {
        return DataSources.storeConfig(config, worker.relay().ordering());
    }

    @Provides
    @Singleton
    PostgresOutboxStore store(HikariDataSource dataSource, PostgresOutboxConfig config) {
        return PostgresOutboxStore.create(dataSource, config);
    }
}
