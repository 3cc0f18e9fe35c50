package dev.outboxjava.relayapp.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.relayapp.DatabaseConfig;
import java.util.concurrent.TimeUnit;

/** The worker's connection pool and store configuration, from its {@link DatabaseConfig}. */
public final class DataSources {

    /** A loop waiting for a connection during an outage should fail fast and back off, not hang. */
    private static final long CONNECTION_TIMEOUT_MS = TimeUnit.SECONDS.toMillis(5);

    private DataSources() {}

    /** A HikariCP pool that starts even while the database is down (the loops back off and retry). */
    public static HikariDataSource pool(DatabaseConfig config) {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(config.url());
        if (!config.user().isEmpty()) {
            hikari.setUsername(config.user());
        }
        if (!config.password().isEmpty()) {
            hikari.setPassword(config.password());
        }
        hikari.setMaximumPoolSize(config.poolSize());
        hikari.setMinimumIdle(1);
        hikari.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
        hikari.setInitializationFailTimeout(-1);
        hikari.setPoolName("outbox-worker");
        hikari.addDataSourceProperty("ApplicationName", "outbox-worker " + config.table());
        hikari.addDataSourceProperty("connectTimeout", "5");
        return new HikariDataSource(hikari);
    }

    /**
     * The store's configuration. The ordering is the relay's, so store and relay always agree; the
     * wake-up mode decides whether the relay LISTENs and whether {@code ensureSchema} creates the trigger.
     */
    public static PostgresOutboxConfig storeConfig(DatabaseConfig config, Ordering ordering, WakeUpMode wakeUp) {
        return storeConfig(config, config.table(), ordering, wakeUp);
    }

    /** {@link #storeConfig(DatabaseConfig, Ordering, WakeUpMode)} for another table of the same database. */
    public static PostgresOutboxConfig storeConfig(
            DatabaseConfig config, String table, Ordering ordering, WakeUpMode wakeUp) {
        return PostgresOutboxConfig.builder()
                .tableName(table)
                .completionMode(config.completionMode())
                .maximumPoolSize(config.poolSize())
                .ordering(ordering)
                .layout(config.layout())
                .wakeUpMode(wakeUp)
                .build();
    }
}
