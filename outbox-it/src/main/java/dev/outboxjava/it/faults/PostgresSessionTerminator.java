package dev.outboxjava.it.faults;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Terminates the relays' own PostgreSQL sessions ({@code pg_terminate_backend}), chosen by their
 * {@code application_name}: to the relays this looks like a database restart (every connection breaks
 * at once, mid-statement or idle), while a server shared with others keeps running. On a dedicated
 * machine, restarting the server ({@code pg_ctlcluster … restart}) is the bigger hammer.
 */
public final class PostgresSessionTerminator {

    private final DataSource dataSource;
    private final String applicationNameLike;

    /**
     * @param dataSource          a connection allowed to terminate the sessions (same user, or a superuser)
     * @param applicationNameLike a SQL LIKE pattern of the relays' {@code application_name}, e.g.
     *                            {@code %outbox_faults_1234%}; must not match the caller's own sessions
     */
    public PostgresSessionTerminator(DataSource dataSource, String applicationNameLike) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.applicationNameLike = Objects.requireNonNull(applicationNameLike, "applicationNameLike");
        if (applicationNameLike.replace("%", "").replace("_", "").isBlank()) {
            throw new IllegalArgumentException(
                    "applicationNameLike '" + applicationNameLike + "' would match every session");
        }
    }

    /**
     * Terminates every matching session except this one.
     *
     * @return how many were terminated
     */
    public int terminate() throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement("SELECT count(*) FILTER (WHERE "
                        + "pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name LIKE ? "
                        + "AND pid <> pg_backend_pid()")) {
            statement.setString(1, applicationNameLike);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }
}
