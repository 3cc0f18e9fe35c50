package dev.outboxjava.postgres.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** What the outbox and inbox schemas share: reading a shipped migration, running DDL once at a time. */
public final class DdlScripts {

    private DdlScripts() {}

    /** The text of a migration file on the classpath. */
    public static String resource(String path) {
        try (InputStream in = DdlScripts.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("resource " + path + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs {@code ddl} in one transaction under a transaction-scoped advisory lock named
     * {@code lockName}, so several instances starting together do not race on CREATE … IF NOT EXISTS.
     */
    public static void applyLocked(DataSource dataSource, String lockName, String ddl) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                try (PreparedStatement lock =
                        connection.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
                    lock.setString(1, lockName);
                    lock.execute();
                }
                try (Statement statement = connection.createStatement()) {
                    statement.execute(ddl);
                }
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        }
    }
}
