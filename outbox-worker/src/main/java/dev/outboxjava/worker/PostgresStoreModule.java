package dev.outboxjava.worker;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.ProvidesIntoSet;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Binds {@link OutboxStore} to a {@link PostgresOutboxStore} on the application's own
 * {@link DataSource} (any: a pool, or a plain {@code PGSimpleDataSource}), with the SAME
 * {@link PostgresOutboxConfig} the application appends with: table, notification channel, completion
 * mode, ordering and the {@linkplain PostgresOutboxConfig#wakeUpMode() wake-up mode}, which decides
 * whether the relay LISTENs (it then holds one connection of the data source while the worker runs)
 * or expects in-process signals. The worker neither builds nor closes the data source: it belongs to
 * the application. When the store's configuration leaves the ordering at none, the relay's ordering
 * of {@link OutboxWorkerModule} is taken, so the two cannot disagree. Wiring only.
 *
 * <pre>{@code
 * PostgresOutboxConfig outbox = PostgresOutboxConfig.builder().tableName("billing.outbox_events").build();
 * TransactionalOutbox appender = TransactionalOutbox.create(dataSource, outbox);   // producer side
 * new PostgresStoreModule(dataSource, outbox)                                       // worker side
 * }</pre>
 */
public final class PostgresStoreModule extends AbstractModule {

    private final DataSource dataSource;
    private final PostgresOutboxConfig store;

    /**
     * @param dataSource the application's data source; in a wake-up mode that LISTENs its connections
     *                   must unwrap to pgjdbc's {@code PGConnection}
     * @param store      the configuration the application appends with
     */
    public PostgresStoreModule(DataSource dataSource, PostgresOutboxConfig store) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.store = Objects.requireNonNull(store, "store");
    }

    @Override
    protected void configure() {
        bind(OutboxStore.class).to(PostgresOutboxStore.class);
    }

    @Provides
    @Singleton
    PostgresOutboxConfig postgresConfig(OutboxWorkerConfig worker) {
        return store.ordering().isPerKey()
                ? store
                : store.toBuilder().ordering(worker.relay().ordering()).build();
    }

    @Provides
    @Singleton
    PostgresOutboxStore store(PostgresOutboxConfig config, OutboxWorkerConfig worker) {
        ConnectionBudget.poolSize(dataSource)
                .ifPresent(size -> ConnectionBudget.check(
                        worker, config.wakeUpMode(), size, "the data source's maximum pool size"));
        return PostgresOutboxStore.create(dataSource, config);
    }

    @ProvidesIntoSet
    WakeUpSource wakeUp(PostgresOutboxStore store) {
        return PostgresWakeUps.forStore(store);
    }
}
