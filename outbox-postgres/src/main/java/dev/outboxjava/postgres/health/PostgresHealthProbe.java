package dev.outboxjava.postgres.health;

import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.postgres.internal.Identifiers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * Reads the PostgreSQL signals behind an unhealthy outbox: dead tuples and the last vacuum of the
 * outbox table, what holds back the xmin horizon (the oldest open transaction with the session that
 * holds it, prepared transactions, replication slots), and the inbox table's size. Catalog and
 * statistics views only: cheap, no lock on the outbox table. Table names go in as bind parameters
 * ({@code to_regclass(?)}), never into the SQL text.
 *
 * <p>Thread-safe; every {@link #read(Instant)} borrows one connection for five short queries.
 */
public final class PostgresHealthProbe {

    private static final String TABLE_STATISTICS = """
            SELECT coalesce(s.n_live_tup, 0), coalesce(s.n_dead_tup, 0), pg_total_relation_size(c.oid),
                   s.last_autovacuum, s.last_vacuum
            FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
            WHERE c.oid = to_regclass(?)""";

    /*
     * A backend holds the horizon back with its own xid (a writing transaction) or with its snapshot's
     * xmin (a running statement, or a repeatable-read transaction). Other databases' backends do not
     * hold back this database's tables, so they are left out.
     */
    private static final String OLDEST_TRANSACTION = """
            SELECT pid, coalesce(application_name, ''), coalesce(state, ''), xact_start,
                   greatest(coalesce(age(backend_xid), 0), coalesce(age(backend_xmin), 0)) AS xid_age,
                   coalesce(host(client_addr) || ':' || client_port, ''), coalesce(usename::text, ''), query_start
            FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL
              AND (backend_xid IS NOT NULL OR backend_xmin IS NOT NULL)
            ORDER BY xid_age DESC, xact_start
            LIMIT 1""";

    /* Prepared transactions of other databases do not hold back this database's tables. */
    private static final String PREPARED_TRANSACTIONS = """
            SELECT gid, owner::text, prepared, age(transaction)
            FROM pg_prepared_xacts
            WHERE database = current_database()
            ORDER BY age(transaction) DESC""";

    /*
     * A physical slot (database NULL) holds the horizon of every database; a logical slot that of
     * its own database (and the shared catalogs).
     */
    private static final String REPLICATION_SLOTS = """
            SELECT slot_name::text, slot_type, active, active_pid, age(xmin), age(catalog_xmin)
            FROM pg_replication_slots
            WHERE (xmin IS NOT NULL OR catalog_xmin IS NOT NULL)
              AND (database IS NULL OR database = current_database())
            ORDER BY greatest(coalesce(age(xmin), 0), coalesce(age(catalog_xmin), 0)) DESC, slot_name""";

    private final DataSource dataSource;
    private final Identifiers.TableName outboxTable;
    private final Optional<Identifiers.TableName> inboxTable;

    private PostgresHealthProbe(DataSource dataSource, Identifiers.TableName outboxTable,
            Optional<Identifiers.TableName> inboxTable) {
        this.dataSource = dataSource;
        this.outboxTable = outboxTable;
        this.inboxTable = inboxTable;
    }

    /**
     * A probe of the given outbox table and, when given, inbox table.
     *
     * @param outboxTable {@code table} or {@code schema.table}, validated like the store's table name
     * @param inboxTable  the inbox table, or empty to leave the inbox out
     * @throws dev.outboxjava.core.InvalidConfigurationException when a name is not a plain identifier
     */
    public static PostgresHealthProbe create(DataSource dataSource, String outboxTable, Optional<String> inboxTable) {
        Objects.requireNonNull(dataSource, "dataSource");
        return new PostgresHealthProbe(dataSource, Identifiers.tableName("health.outboxTable", outboxTable),
                inboxTable.map(name -> Identifiers.tableName("health.inboxTable", name)));
    }

    /**
     * Reads every signal once.
     *
     * @param now the caller's clock reading, from which transaction ages are computed
     * @throws OutboxStoreException when the database cannot be asked
     */
    public DatabaseHealthReport read(Instant now) {
        Objects.requireNonNull(now, "now");
        try (Connection connection = dataSource.getConnection()) {
            Optional<TableStatistics> outbox = tableStatistics(connection, outboxTable);
            Optional<OpenTransaction> oldest = oldestTransaction(connection, now);
            Optional<TableStatistics> inbox = inboxTable.isPresent()
                    ? tableStatistics(connection, inboxTable.get()) : Optional.empty();
            return new DatabaseHealthReport(now, outbox, oldest, inbox, preparedTransactions(connection, now),
                    replicationSlots(connection));
        } catch (SQLException e) {
            throw new OutboxStoreException("could not read the database health signals (pg_stat_user_tables, "
                    + "pg_stat_activity, pg_prepared_xacts, pg_replication_slots): " + e.getMessage(), e);
        }
    }

    private static Optional<TableStatistics> tableStatistics(Connection connection, Identifiers.TableName table)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(TABLE_STATISTICS)) {
            statement.setString(1, table.quoted());
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next()) {
                    return Optional.empty();
                }
                return Optional.of(new TableStatistics(table.display(), rows.getLong(1), rows.getLong(2),
                        rows.getLong(3), instant(rows.getTimestamp(4)), instant(rows.getTimestamp(5))));
            }
        }
    }

    private static Optional<OpenTransaction> oldestTransaction(Connection connection, Instant now)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(OLDEST_TRANSACTION);
                ResultSet rows = statement.executeQuery()) {
            if (!rows.next()) {
                return Optional.empty();
            }
            Instant started = rows.getTimestamp(4).toInstant();
            return Optional.of(new OpenTransaction(rows.getInt(1), rows.getString(2), rows.getString(6),
                    rows.getString(7), rows.getString(3), started, instant(rows.getTimestamp(8)),
                    ageAt(started, now), rows.getLong(5)));
        }
    }

    private static List<PreparedTransaction> preparedTransactions(Connection connection, Instant now)
            throws SQLException {
        List<PreparedTransaction> prepared = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(PREPARED_TRANSACTIONS);
                ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                Instant at = rows.getTimestamp(3).toInstant();
                prepared.add(new PreparedTransaction(rows.getString(1), rows.getString(2), at, ageAt(at, now),
                        rows.getLong(4)));
            }
        }
        return prepared;
    }

    private static List<ReplicationSlotHold> replicationSlots(Connection connection) throws SQLException {
        List<ReplicationSlotHold> slots = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(REPLICATION_SLOTS);
                ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                int pid = rows.getInt(4);
                Optional<Integer> activePid = rows.wasNull() ? Optional.empty() : Optional.of(pid);
                long xmin = rows.getLong(5);
                OptionalLong xminAge = rows.wasNull() ? OptionalLong.empty() : OptionalLong.of(xmin);
                long catalogXmin = rows.getLong(6);
                OptionalLong catalogXminAge = rows.wasNull() ? OptionalLong.empty() : OptionalLong.of(catalogXmin);
                slots.add(new ReplicationSlotHold(rows.getString(1), rows.getString(2), rows.getBoolean(3), activePid,
                        xminAge, catalogXminAge));
            }
        }
        return slots;
    }

    private static Duration ageAt(Instant since, Instant now) {
        Duration age = Duration.between(since, now);
        return age.isNegative() ? Duration.ZERO : age;
    }

    private static Optional<Instant> instant(Timestamp timestamp) {
        return Optional.ofNullable(timestamp).map(Timestamp::toInstant);
    }
}
