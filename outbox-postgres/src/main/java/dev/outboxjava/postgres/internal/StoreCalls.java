package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.OutboxException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * How the store runs a call: on a connection of its data source in auto-commit, any failure but an
 * {@link OutboxException} worded by {@link Failures} with what was attempted and the table.
 */
public final class StoreCalls {

    private final DataSource dataSource;
    private final Identifiers.TableName table;

    public StoreCalls(DataSource dataSource, Identifiers.TableName table) {
        this.dataSource = dataSource;
        this.table = table;
    }

    /**
     * Runs a statement (plain JDBC or jOOQ on the connection) on a connection of the data source, in
     * auto-commit: each is one statement, or manages its own short transaction (the lease, a repair).
     */
    public <T> T withConnection(String attempted, ConnectionCall<T> call) {
        return run(attempted, () -> {
            try (Connection connection = dataSource.getConnection()) {
                if (!connection.getAutoCommit()) {
                    // a pool handing out connections in manual-commit mode would otherwise roll the mark back
                    connection.setAutoCommit(true);
                }
                return call.apply(connection);
            }
        });
    }

    public <T> T run(String attempted, StoreCall<T> statement) {
        try {
            return statement.call();
        } catch (OutboxException e) {
            throw e;
        } catch (SQLException | RuntimeException e) {
            throw Failures.wrap(attempted, table, e);
        }
    }

    /** A store call: jOOQ (unchecked failures) or plain JDBC ({@link SQLException}). */
    @FunctionalInterface
    public interface StoreCall<T> {
        T call() throws SQLException;
    }

    @FunctionalInterface
    public interface ConnectionCall<T> {
        T apply(Connection connection) throws SQLException;
    }
}
