package dev.outboxjava.postgres.internal;

import dev.outboxjava.postgres.StoreLayout;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Whether the outbox table in the database is in the layout the store is configured for. A store of one
 * layout over a table of the other fails its statements with errors about missing tables or columns that
 * do not say why; this says why and which setting to change.
 */
public final class LayoutProbe {

    private final Identifiers.TableName table;
    private final StoreLayout layout;

    public LayoutProbe(Identifiers.TableName table, StoreLayout layout) {
        this.table = table;
        this.layout = layout;
    }

    /** The layout of the table in the database; empty when there is no such table. */
    public Optional<StoreLayout> actual(Connection connection) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("SELECT relkind::text FROM pg_class WHERE oid = to_regclass(?)")) {
            statement.setString(1, table.quoted());
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                // the append-only log is partitioned; the in-place table is a plain one
                return Optional.of(rs.getString(1).equals("p") ? StoreLayout.APPEND_LOG : StoreLayout.IN_PLACE);
            }
        }
    }

    /** What is wrong, if the table exists in the other layout; empty if it matches (or is missing). */
    public Optional<String> mismatch(Connection connection) throws SQLException {
        Optional<StoreLayout> actual = actual(connection);
        if (actual.isEmpty() || actual.get() == layout) {
            return Optional.empty();
        }
        return Optional.of(
                actual.get() == StoreLayout.APPEND_LOG
                        ? "outbox table " + table.display() + " is in the append-only layout but the store is"
                                + " configured for the in-place one: set layout APPEND_LOG"
                                + " (outbox.store.layout=append_log)"
                        : "outbox table " + table.display() + " is in the in-place layout but the store is"
                                + " configured for the append-only one: set layout IN_PLACE"
                                + " (outbox.store.layout=in_place), or convert the table with the relays stopped"
                                + " (PostgresSchema.convertToAppendLog)");
    }
}
