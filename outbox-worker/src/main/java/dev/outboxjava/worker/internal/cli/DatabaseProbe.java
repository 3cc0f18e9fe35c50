package dev.outboxjava.worker.internal.cli;

import dev.outboxjava.worker.ConfigKey;
import dev.outboxjava.worker.DatabaseConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Opens one connection, with short timeouts, to tell "database unreachable" apart from any later failure. */
final class DatabaseProbe {

    private DatabaseProbe() {
    }

    static void requireReachable(DatabaseConfig config) {
        Properties properties = new Properties();
        if (!config.user().isEmpty()) {
            properties.setProperty("user", config.user());
        }
        if (!config.password().isEmpty()) {
            properties.setProperty("password", config.password());
        }
        properties.setProperty("connectTimeout", "5");
        properties.setProperty("loginTimeout", "5");
        properties.setProperty("socketTimeout", "10");
        try (Connection connection = DriverManager.getConnection(config.url(), properties)) {
            connection.isValid(5);
        } catch (SQLException e) {
            throw new DatabaseUnreachableException("database unreachable at " + config.url() + ": " + e.getMessage()
                    + " (check " + ConfigKey.DB_URL.displayName() + ", " + ConfigKey.DB_USER.property() + "/"
                    + ConfigKey.DB_PASSWORD.property() + ", and that PostgreSQL is running)", e, waitingHelps(e));
        }
    }

    /**
     * Waits until the database accepts a connection: while it is down, starting up or out of
     * connections, tries again every {@code interval}, telling {@code waiting} the reason on the first
     * failed attempt only. Gives up at once, with {@link DatabaseUnreachableException}, when waiting
     * cannot help: the login is rejected or the database does not exist.
     *
     * @return true once reachable; false when {@code stop} was released first
     */
    static boolean awaitReachable(DatabaseConfig config, Duration interval, CountDownLatch stop,
            Consumer<DatabaseUnreachableException> waiting) throws InterruptedException {
        boolean told = false;
        while (stop.getCount() > 0) {
            try {
                requireReachable(config);
                return true;
            } catch (DatabaseUnreachableException e) {
                if (!e.waitingHelps()) {
                    throw e;
                }
                if (!told) {
                    waiting.accept(e);
                    told = true;
                }
            }
            if (stop.await(interval.toNanos(), TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
        return false;
    }

    /**
     * Whether the server may accept a later attempt with the same settings: everything but a rejected
     * login (SQLSTATE class 28), a missing database (3D000) or a refused privilege (42501).
     */
    static boolean waitingHelps(SQLException e) {
        String state = e.getSQLState();
        if (state == null) {
            return true;
        }
        return !(state.startsWith("28") || state.equals("3D000") || state.equals("42501"));
    }
}
