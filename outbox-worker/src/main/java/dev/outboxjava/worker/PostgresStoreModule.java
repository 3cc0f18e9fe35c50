package dev.outboxjava.worker;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.worker.internal.PostgresNotifyWakeUp;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Binds {@link OutboxStore} to a {@link PostgresOutboxStore} on the application's own
 * {@link DataSource} (any: a pool, or a plain {@code PGSimpleDataSource}), and, with
 * {@link WakeUpStrategy#NOTIFY}, a LISTEN wake-up for the relay (it holds one connection of the
 * data source while the worker runs). The worker neither builds nor closes the data source: it
 * belongs to the application. The store's per-key ordering is taken from the relay settings of
 * {@link OutboxWorkerModule}, so the two cannot disagree. Wiring only.
 *
 * <pre>{@code
 * new PostgresStoreModule(dataSource, PostgresOutboxConfig.builder().tableName("billing.outbox_events").build(),
 *         WakeUpStrategy.NOTIFY)
 * }</pre>
 */
public final class PostgresStoreModule extends AbstractModule {

    private final DataSource dataSource;
    private final PostgresOutboxConfig store;
    private final WakeUpStrategy wakeUp;

    /**
     * @param dataSource the application's data source; with {@link WakeUpStrategy#NOTIFY} its
     *                   connections must unwrap to pgjdbc's {@code PGConnection}
     * @param store      table, notification channel and completion mode (its ordering is replaced by the relay's)
     * @param wakeUp     whether the relay LISTENs for the table's NOTIFY besides polling
     */
    public PostgresStoreModule(DataSource dataSource, PostgresOutboxConfig store, WakeUpStrategy wakeUp) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.store = Objects.requireNonNull(store, "store");
        this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp");
    }

    @Override
    protected void configure() {
        bind(OutboxStore.class).to(PostgresOutboxStore.class);
        Multibinder<WakeUpSource> wakeUpSources = Multibinder.newSetBinder(binder(), WakeUpSource.class);
        if (wakeUp == WakeUpStrategy.NOTIFY) {
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
