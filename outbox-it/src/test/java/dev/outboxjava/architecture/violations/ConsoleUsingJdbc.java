// Fixture for ArchitectureTest: deliberately breaks "the console goes through the operator API, never SQL".
// It lives in a console package (the rule's scope) although its file sits with the other fixtures.
package dev.outboxjava.console.archviolation;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** A console class that queries the database itself. */
public final class ConsoleUsingJdbc {

    private ConsoleUsingJdbc() {}

    public static void requeueAll(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.createStatement().executeUpdate("UPDATE outbox_events SET status = 'pending'");
        }
    }
}
