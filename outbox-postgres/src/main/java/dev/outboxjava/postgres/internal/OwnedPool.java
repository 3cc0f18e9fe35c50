package dev.outboxjava.postgres.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;

/**
 * The HikariCP pool of a store created from a JDBC URL, which the store closes. HikariCP is optional:
 * only this class names its types, so a store built on the caller's {@code DataSource} loads without it.
 * Linking this class needs HikariCP: check {@link #HIKARI} is there before the first call.
 */
public final class OwnedPool implements AutoCloseable {

    /** The class this pool needs, by name, for a check that does not link this class. */
    public static final String HIKARI = "com.zaxxer.hikari.HikariDataSource";

    private final HikariDataSource pool;

    private OwnedPool(HikariDataSource pool) {
        this.pool = pool;
    }

    /**
     * @param name the pool's name and the sessions' {@code application_name}, as {@code pg_stat_activity} shows them
     */
    public static OwnedPool create(String jdbcUrl, String user, String password, int size, String name) {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(jdbcUrl);
        hikari.setUsername(user);
        hikari.setPassword(password);
        hikari.setMaximumPoolSize(size);
        hikari.setMinimumIdle(Math.min(1, size));
        hikari.setPoolName(name);
        // Start even while the database is down: the relay backs off and retries, as with any outage.
        hikari.setInitializationFailTimeout(-1);
        hikari.addDataSourceProperty("ApplicationName", name);
        return new OwnedPool(new HikariDataSource(hikari));
    }

    public DataSource dataSource() {
        return pool;
    }

    @Override
    public void close() {
        pool.close();
    }
}
