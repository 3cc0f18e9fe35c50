package dev.outboxjava.benchmarks.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * The database of a stand-alone measuring program: a pool on {@code jdbcUrl} (user postgres) and a schema
 * of its own, dropped by {@link #close()}.
 */
public final class ProgramDatabase implements AutoCloseable {

    /** Where the programs measure unless told otherwise. */
    public static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test";

    private final HikariDataSource pool;
    private final String schema;

    private ProgramDatabase(HikariDataSource pool, String schema) {
        this.pool = pool;
        this.schema = schema;
    }

    /** A pool of {@code size} connections and a new schema named {@code prefix} and a random suffix. */
    public static ProgramDatabase open(String jdbcUrl, String prefix, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername("postgres");
        config.setMaximumPoolSize(size);
        config.setPoolName(prefix);
        HikariDataSource pool = new HikariDataSource(config);
        String schema =
                prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        ProgramDatabase database = new ProgramDatabase(pool, schema);
        try {
            database.execute("CREATE SCHEMA " + schema);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
        return database;
    }

    public HikariDataSource dataSource() {
        return pool;
    }

    public String schema() {
        return schema;
    }

    public void execute(String sql) {
        try (Connection connection = pool.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** Drops the schema and closes the pool. */
    @Override
    public void close() {
        try {
            execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        } finally {
            pool.close();
        }
    }
}
