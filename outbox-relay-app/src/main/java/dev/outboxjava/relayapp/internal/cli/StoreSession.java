package dev.outboxjava.relayapp.internal.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.relayapp.ConfigKey;
import dev.outboxjava.relayapp.DatabaseConfig;
import dev.outboxjava.relayapp.internal.DataSources;

/** A store for one operator command: database reachable (else exit 3) and the table present (else exit 2). */
final class StoreSession implements AutoCloseable {

    private final HikariDataSource dataSource;
    private final PostgresOutboxStore store;

    private StoreSession(HikariDataSource dataSource, PostgresOutboxStore store) {
        this.dataSource = dataSource;
        this.store = store;
    }

    static StoreSession open(DatabaseConfig config) {
        return open(config, Ordering.none());
    }

    /** With the relay's ordering, for figures that depend on it (events held back by their key). */
    static StoreSession open(DatabaseConfig config, Ordering ordering) {
        DatabaseProbe.requireReachable(config);
        DatabaseProbe.requireOutboxTable(config);
        HikariDataSource dataSource = DataSources.pool(new DatabaseConfig(
                config.url(),
                config.user(),
                config.password(),
                Math.min(2, config.poolSize()),
                config.table(),
                config.completionMode()));
        PostgresOutboxStore store =
                PostgresOutboxStore.create(dataSource, DataSources.storeConfig(config, ordering, WakeUpMode.NONE));
        HealthCheck health = store.checkHealth();
        if (!health.healthy()) {
            dataSource.close();
            throw new OutboxException("outbox table '" + config.table() + "' is not usable: " + health.detail()
                    + " (check " + ConfigKey.TABLE.displayName() + "; create the table with 'outbox-worker schema "
                    + "--table " + config.table() + "' or 'run --ensure-schema')");
        }
        return new StoreSession(dataSource, store);
    }

    PostgresOutboxStore store() {
        return store;
    }

    HikariDataSource dataSource() {
        return dataSource;
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
