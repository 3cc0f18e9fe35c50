package dev.outboxjava.postgres;

import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.postgres.internal.Identifiers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Which schemas of a database hold an outbox table: what a worker of many outboxes reads to find its
 * tenants. A read of the system catalog, one short statement.
 */
public final class PostgresOutboxCatalog {

    private PostgresOutboxCatalog() {}

    /**
     * The schemas that hold a table (plain or partitioned, so either layout) named {@code table}, in name
     * order.
     *
     * @param table the unqualified table name, e.g. {@code outbox_events}
     * @throws dev.outboxjava.core.InvalidConfigurationException when {@code table} is not a plain identifier
     * @throws OutboxStoreException when the database cannot be asked
     */
    public static List<String> schemasHolding(DataSource dataSource, String table) {
        Objects.requireNonNull(dataSource, "dataSource");
        Identifiers.TableName name = Identifiers.tableName("tableName", table);
        if (name.schema().isPresent()) {
            throw new dev.outboxjava.core.InvalidConfigurationException(
                    "tableName",
                    "'" + table + "' is qualified; discovery takes the table name alone, e.g. outbox_events");
        }
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement("SELECT n.nspname FROM pg_class c"
                        + " JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE c.relname = ? AND c.relkind IN ('r', 'p') ORDER BY n.nspname")) {
            statement.setString(1, name.table());
            List<String> schemas = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    schemas.add(rows.getString(1));
                }
            }
            return schemas;
        } catch (SQLException e) {
            throw new OutboxStoreException(
                    "could not read which schemas hold an outbox table " + table + ": " + e.getMessage(), e);
        }
    }
}
