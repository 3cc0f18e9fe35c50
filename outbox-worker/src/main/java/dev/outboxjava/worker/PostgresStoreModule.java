package dev.outboxjava.worker;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.worker.internal.PostgresNotifyWakeUp;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Binds {@link OutboxStore} to a {@link PostgresOutboxStore} on the application's own
 * {@link DataSource} (any: a pool, or a plain {@code PGSimpleDataSource}), and, unless the store's
 * {@link PostgresOutboxConfig#wakeUpMode()} is {@link WakeUpMode#NONE}, a LISTEN wake-up for the relay
 * on the table's notification channel (it holds one connection of the data source while the worker
 * runs). The worker neither builds nor closes the data source: it
 * belongs to the application. The store's per-key ordering is taken from the relay settings of
 * {@link OutboxWorkerModule}, so the two cannot disagree. Wiring only.
 *
 * <pre>{@code
 * new PostgresStoreModule(dataSource, PostgresOutboxConfig.builder().tableName("billing.outbox_events").build())
 * }</pre>
 */
public final class PostgresStoreModule extends AbstractModule {

    private final DataSource dataSource;
    private final PostgresOutboxConfig store;

    /**
     * @param dataSource the application's data source; unless the wake-up mode is {@link WakeUpMode#NONE}
     *                   its connections must unwrap to pgjdbc's {@code PGConnection}
     * @param store      table, notification channel, wake-up and completion mode (its ordering is replaced
     *                   by the relay's); the relay LISTENs besides polling unless the wake-up mode is
     *                   {@link WakeUpMode#NONE}
     */
    public PostgresStoreModule(DataSource dataSource, PostgresOutboxConfig store) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.store = Objects.requireNonNull(store, "store");
    }

    @Override
    protected void configure() {
        bind(OutboxStore.class).to(PostgresOutboxStore.class);
        Multibinder<WakeUpSource> wakeUpSources = Multibinder.newSetBinder(binder(), WakeUpSource.class);
        if (store.wakeUpMode() != WakeUpMode.NONE) {
            wakeUpSources.addBinding().to(PostgresNotifyWakeUp.class);
        }
    }

    @Provides
    @Singleton
    PostgresOutboxConfig postgresConfig(OutboxWorkerConfig worker) {
        return store.toBuilder().ordering(worker.relay().ordering()).build();
    }

    @Provides
    @Singleton
    PostgresOutboxStore store(PostgresOutboxConfig config) {
        return PostgresOutboxStore.create(dataSource, config);
    }
}
