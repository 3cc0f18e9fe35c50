package dev.outboxjava.worker.internal.cli;

import dev.outboxjava.worker.ConfigKey;
import dev.outboxjava.worker.DatabaseConfig;
import dev.outboxjava.worker.internal.Secrets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

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
            throw new DatabaseUnreachableException("database unreachable at " + Secrets.maskText(config.url()) + ": "
                    + Secrets.maskText(e.getMessage(), config.password())
                    + " (check " + ConfigKey.DB_URL.displayName() + ", " + ConfigKey.DB_USER.property() + "/"
                    + ConfigKey.DB_PASSWORD.property() + ", and that PostgreSQL is running)", e);
        }
    }
}
