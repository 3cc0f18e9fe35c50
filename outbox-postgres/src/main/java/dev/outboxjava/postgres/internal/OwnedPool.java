package dev.outboxjava.postgres.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** The HikariCP pool of a store created from a JDBC URL, which the store closes. */
public final class OwnedPool {

    private OwnedPool() {}

    /**
     * @param name the pool's name and the sessions' {@code application_name}, as {@code pg_stat_activity} shows them
     */
    public static HikariDataSource create(String jdbcUrl, String user, String password, int size, String name) {
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
        return new HikariDataSource(hikari);
    }
}
