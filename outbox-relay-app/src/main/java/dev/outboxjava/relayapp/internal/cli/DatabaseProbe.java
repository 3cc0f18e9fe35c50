package dev.outboxjava.relayapp.internal.cli;

import dev.outboxjava.relayapp.ConfigKey;
import dev.outboxjava.relayapp.DatabaseConfig;
import dev.outboxjava.relayapp.internal.Secrets;
import dev.outboxjava.worker.InvalidSettingsException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Opens one connection, with short timeouts, to tell "database unreachable" apart from any later failure. */
final class DatabaseProbe {

    private DatabaseProbe() {}

    static void requireReachable(DatabaseConfig config) {
        try (Connection connection = connect(config)) {
            connection.isValid(5);
        } catch (SQLException e) {
            throw unreachable(config, e);
        }
    }

    /**
     * Fails with a configuration error (exit 2) naming {@code outbox.table} and the {@code schema}
     * command when the outbox table does not exist. An unreachable database is not this check's
     * business: it returns, and whoever needs the database reports it.
     */
    static void requireOutboxTable(DatabaseConfig config) {
        if (isOutboxTableMissing(config)) {
            throw missingTable(config);
        }
    }

    /**
     * Whether the database says the outbox table does not exist; false when it cannot be asked (whoever
     * needs the database reports that).
     */
    static boolean isOutboxTableMissing(DatabaseConfig config) {
        try (Connection connection = connect(config);
                PreparedStatement query = connection.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            query.setString(1, quoted(config.table()));
            try (ResultSet row = query.executeQuery()) {
                return !(row.next() && row.getBoolean(1));
            }
        } catch (SQLException e) {
            return false;
        }
    }

    static InvalidSettingsException missingTable(DatabaseConfig config) {
        return new InvalidSettingsException(List.of(new InvalidSettingsException.Problem(
                ConfigKey.TABLE.displayName(),
                "the outbox table " + config.table() + " does not exist in "
                        + Secrets.maskText(config.url()) + ". Create it with 'outbox-worker schema --table "
                        + config.table() + "' (prints the DDL for psql or your migrations) or start with "
                        + "'run --ensure-schema', or point " + ConfigKey.TABLE.property() + " at the existing table")));
    }

    /** {@code schema.table} as {@code "schema"."table"}: names are validated lower-case identifiers. */
    private static String quoted(String table) {
        StringBuilder quoted = new StringBuilder();
        for (String part : table.split("\\.")) {
            quoted.append(quoted.length() == 0 ? "" : ".")
                    .append('"')
                    .append(part)
                    .append('"');
        }
        return quoted.toString();
    }

    private static Connection connect(DatabaseConfig config) throws SQLException {
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
        return DriverManager.getConnection(config.url(), properties);
    }

    private static DatabaseUnreachableException unreachable(DatabaseConfig config, SQLException e) {
        return new DatabaseUnreachableException(
                "database unreachable at " + Secrets.maskText(config.url()) + ": "
                        + Secrets.maskText(e.getMessage(), config.password()) + " (check "
                        + ConfigKey.DB_URL.displayName()
                        + ", " + ConfigKey.DB_USER.property() + "/" + ConfigKey.DB_PASSWORD.property()
                        + ", and that PostgreSQL is running)",
                e,
                waitingHelps(e));
    }

    /**
     * Waits until the database accepts a connection: while it is down, starting up or out of
     * connections, tries again every {@code interval}, telling {@code waiting} the reason on the first
     * failed attempt only. Gives up at once, with {@link DatabaseUnreachableException}, when waiting
     * cannot help: the login is rejected or the database does not exist.
     *
     * @return true once reachable; false when {@code stop} was released first
     */
    static boolean awaitReachable(
            DatabaseConfig config,
            Duration interval,
            CountDownLatch stop,
            Consumer<DatabaseUnreachableException> waiting)
            throws InterruptedException {
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
