package dev.outboxjava.postgres.health;

import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Reads the PostgreSQL signals behind an unhealthy outbox: dead tuples, size and the last vacuum of
 * the outbox's tables, what holds back the xmin horizon (the oldest open transaction with the session
 * that holds it, prepared transactions, replication slots), and the inbox table's size. Catalog and
 * statistics views only: cheap, no lock on the outbox table. The queries are built with jOOQ and
 * rendered once; table names go in as bind parameters ({@code to_regclass(?)}), never into the SQL text.
 *
 * <p>The outbox's tables depend on the layout: in place, the outbox table; in the append-only layout,
 * the partitioned log and its side tables ({@link #outboxTables()}). A partitioned table has no rows of
 * its own, so each table is read over its partitions ({@code pg_partition_tree}).
 *
 * <p>Thread-safe; every {@link #read(Instant)} borrows one connection for a few short queries (one per
 * table of the layout, and four more).
 */
public final class PostgresHealthProbe {

    private static final String TABLE_STATISTICS = tableStatisticsQuery();

    /*
     * A backend holds the horizon back with its own xid (a writing transaction) or with its snapshot's
     * xmin (a running statement, or a repeatable-read transaction). Other databases' backends do not
     * hold back this database's tables, so they are left out.
     */
    private static final String OLDEST_TRANSACTION = oldestTransactionQuery();

    /* Prepared transactions of other databases do not hold back this database's tables. */
    private static final String PREPARED_TRANSACTIONS = preparedTransactionsQuery();

    /*
     * A physical slot (database NULL) holds the horizon of every database; a logical slot that of
     * its own database (and the shared catalogs).
     */
    private static final String REPLICATION_SLOTS = replicationSlotsQuery();

    /*
     * One row per member of the table's partition tree (the table itself, its partitions at every level),
     * or one row for a table that is not partitioned (pg_partition_tree lists nothing for it); no row
     * when the table does not exist. Rows are summed by the caller, leaves only: a partitioned table
     * holds no rows and no storage of its own.
     */
    private static String tableStatisticsQuery() {
        Table<?> c = DSL.table(DSL.name("pg_class")).as("c");
        Field<Object> oid = DSL.field(DSL.name("c", "oid"), SQLDataType.OTHER);
        Table<?> tree = DSL.table("pg_partition_tree({0})", oid).as("t");
        Table<?> s = DSL.table(DSL.name("pg_stat_user_tables")).as("s");
        Field<Object> relid = DSL.coalesce(DSL.field(DSL.name("t", "relid"), SQLDataType.OTHER), oid);
        return PreparedSql.render(DSL.select(
                        DSL.coalesce(DSL.field(DSL.name("t", "isleaf"), SQLDataType.BOOLEAN), DSL.inline(true)),
                        DSL.coalesce(DSL.field(DSL.name("s", "n_live_tup"), SQLDataType.BIGINT), DSL.inline(0L)),
                        DSL.coalesce(DSL.field(DSL.name("s", "n_dead_tup"), SQLDataType.BIGINT), DSL.inline(0L)),
                        DSL.function("pg_total_relation_size", SQLDataType.BIGINT, relid),
                        DSL.field(DSL.name("s", "last_autovacuum"), SQLDataType.TIMESTAMPWITHTIMEZONE),
                        DSL.field(DSL.name("s", "last_vacuum"), SQLDataType.TIMESTAMPWITHTIMEZONE))
                .from(c)
                .leftJoin(tree)
                .on(DSL.trueCondition())
                .leftJoin(s)
                .on(DSL.field(DSL.name("s", "relid"), SQLDataType.OTHER).eq(relid))
                .where(oid.eq(DSL.function("to_regclass", SQLDataType.OTHER, PreparedSql.bind(SQLDataType.CLOB)))));
    }

    private static String oldestTransactionQuery() {
        Field<Integer> xidAge = DSL.greatest(
                        DSL.coalesce(age(column("backend_xid", SQLDataType.OTHER)), DSL.inline(0)),
                        DSL.coalesce(age(column("backend_xmin", SQLDataType.OTHER)), DSL.inline(0)))
                .as("xid_age");
        Field<OffsetDateTime> transactionStart = column("xact_start", SQLDataType.TIMESTAMPWITHTIMEZONE);
        return PreparedSql.render(DSL.select(
                        column("pid", SQLDataType.INTEGER),
                        DSL.coalesce(column("application_name", SQLDataType.CLOB), DSL.inline("")),
                        DSL.coalesce(column("state", SQLDataType.CLOB), DSL.inline("")),
                        transactionStart,
                        xidAge,
                        DSL.coalesce(
                                DSL.concat(
                                        DSL.function(
                                                "host", SQLDataType.CLOB, column("client_addr", SQLDataType.OTHER)),
                                        DSL.inline(":"),
                                        column("client_port", SQLDataType.INTEGER)
                                                .cast(SQLDataType.CLOB)),
                                DSL.inline("")),
                        DSL.coalesce(column("usename", SQLDataType.OTHER).cast(SQLDataType.CLOB), DSL.inline("")),
                        column("query_start", SQLDataType.TIMESTAMPWITHTIMEZONE))
                .from(DSL.table(DSL.name("pg_stat_activity")))
                .where(column("datname", SQLDataType.OTHER).eq(currentDatabase()))
                .and(column("pid", SQLDataType.INTEGER).ne(DSL.function("pg_backend_pid", SQLDataType.INTEGER)))
                .and(transactionStart.isNotNull())
                .and(column("backend_xid", SQLDataType.OTHER)
                        .isNotNull()
                        .or(column("backend_xmin", SQLDataType.OTHER).isNotNull()))
                .orderBy(xidAge.desc(), transactionStart)
                .limit(DSL.inline(1)));
    }

    private static String preparedTransactionsQuery() {
        Field<Integer> age = age(column("transaction", SQLDataType.OTHER));
        return PreparedSql.render(DSL.select(
                        column("gid", SQLDataType.CLOB),
                        column("owner", SQLDataType.OTHER).cast(SQLDataType.CLOB),
                        column("prepared", SQLDataType.TIMESTAMPWITHTIMEZONE),
                        age)
                .from(DSL.table(DSL.name("pg_prepared_xacts")))
                .where(column("database", SQLDataType.OTHER).eq(currentDatabase()))
                .orderBy(age.desc()));
    }

    private static String replicationSlotsQuery() {
        Field<Object> xmin = column("xmin", SQLDataType.OTHER);
        Field<Object> catalogXmin = column("catalog_xmin", SQLDataType.OTHER);
        Field<Object> database = column("database", SQLDataType.OTHER);
        Field<Object> slotName = column("slot_name", SQLDataType.OTHER);
        return PreparedSql.render(DSL.select(
                        slotName.cast(SQLDataType.CLOB),
                        column("slot_type", SQLDataType.CLOB),
                        column("active", SQLDataType.BOOLEAN),
                        column("active_pid", SQLDataType.INTEGER),
                        age(xmin),
                        age(catalogXmin))
                .from(DSL.table(DSL.name("pg_replication_slots")))
                .where(xmin.isNotNull().or(catalogXmin.isNotNull()))
                .and(database.isNull().or(database.eq(currentDatabase())))
                .orderBy(
                        DSL.greatest(
                                        DSL.coalesce(age(xmin), DSL.inline(0)),
                                        DSL.coalesce(age(catalogXmin), DSL.inline(0)))
                                .desc(),
                        slotName));
    }

    private static <T> Field<T> column(String name, DataType<T> type) {
        return DSL.field(DSL.name(name), type);
    }

    /** {@code age(xid)}: how many transaction ids ago it was assigned. */
    private static Field<Integer> age(Field<?> xid) {
        return DSL.function("age", SQLDataType.INTEGER, xid);
    }

    private static Field<Object> currentDatabase() {
        return DSL.function("current_database", SQLDataType.OTHER);
    }

    private final DataSource dataSource;
    private final Identifiers.TableName outboxTable;
    private final List<Identifiers.TableName> outboxTables;
    private final Optional<Identifiers.TableName> inboxTable;

    private PostgresHealthProbe(
            DataSource dataSource,
            Identifiers.TableName outboxTable,
            List<Identifiers.TableName> outboxTables,
            Optional<Identifiers.TableName> inboxTable) {
        this.dataSource = dataSource;
        this.outboxTable = outboxTable;
        this.outboxTables = List.copyOf(outboxTables);
        this.inboxTable = inboxTable;
    }

    /**
     * A probe of the given outbox table in the given layout and, when given, inbox table.
     *
     * @param outboxTable {@code table} or {@code schema.table}, validated like the store's table name
     * @param layout      the layout the store keeps the table in ({@code PostgresOutboxConfig.layout()}),
     *                    which says what the outbox's tables are
     * @param inboxTable  the inbox table, or empty to leave the inbox out
     * @throws dev.outboxjava.core.InvalidConfigurationException when a name is not a plain identifier
     */
    public static PostgresHealthProbe create(
            DataSource dataSource, String outboxTable, StoreLayout layout, Optional<String> inboxTable) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(layout, "layout");
        Identifiers.TableName table = Identifiers.tableName("health.outboxTable", outboxTable);
        List<Identifiers.TableName> tables = layout == StoreLayout.APPEND_LOG
                ? List.of(
                        table,
                        LogLayoutDdl.stateTable(table),
                        LogLayoutDdl.leaseTable(table),
                        LogLayoutDdl.positionTable(table),
                        LogLayoutDdl.sentTable(table),
                        LogLayoutDdl.floorTable(table))
                : List.of(table);
        return new PostgresHealthProbe(
                dataSource, table, tables, inboxTable.map(name -> Identifiers.tableName("health.inboxTable", name)));
    }

    /**
     * The outbox's tables this probe reads, as {@link TableStatistics#table()} names them: in place the
     * outbox table ({@code outbox_events}); in the append-only layout the log and its side tables
     * ({@code outbox_events}, {@code outbox_events_state}, {@code _lease}, {@code _position},
     * {@code _sent}, {@code _floor}), each with the schema when the outbox table is configured with one.
     */
    public List<String> outboxTables() {
        return outboxTables.stream().map(Identifiers.TableName::display).toList();
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
            List<TableStatistics> tables = new ArrayList<>();
            for (Identifiers.TableName table : outboxTables) {
                tableStatistics(connection, table).ifPresent(tables::add);
            }
            // without its first table (the outbox table itself) the outbox does not exist, whatever else does
            Optional<TableStatistics> outbox =
                    tables.isEmpty() || !tables.get(0).table().equals(outboxTable.display())
                            ? Optional.empty()
                            : TableStatistics.combine(outboxTable.display(), tables);
            if (outbox.isEmpty()) {
                tables.clear();
            }
            Optional<OpenTransaction> oldest = oldestTransaction(connection, now);
            Optional<TableStatistics> inbox =
                    inboxTable.isPresent() ? tableStatistics(connection, inboxTable.get()) : Optional.empty();
            return new DatabaseHealthReport(
                    now,
                    outbox,
                    oldest,
                    inbox,
                    preparedTransactions(connection, now),
                    replicationSlots(connection),
                    tables);
        } catch (SQLException e) {
            throw new OutboxStoreException(
                    "could not read the database health signals (pg_stat_user_tables, "
                            + "pg_stat_activity, pg_prepared_xacts, pg_replication_slots): " + e.getMessage(),
                    e);
        }
    }

    private static Optional<TableStatistics> tableStatistics(Connection connection, Identifiers.TableName table)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(TABLE_STATISTICS)) {
            statement.setString(1, table.quoted());
            boolean exists = false;
            List<TableStatistics> leaves = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    exists = true;
                    if (rows.getBoolean(1)) {
                        leaves.add(new TableStatistics(
                                table.display(),
                                rows.getLong(2),
                                rows.getLong(3),
                                rows.getLong(4),
                                instant(rows.getTimestamp(5)),
                                instant(rows.getTimestamp(6))));
                    }
                }
            }
            if (!exists) {
                return Optional.empty();
            }
            // a partitioned table without partitions holds nothing
            return Optional.of(TableStatistics.combine(table.display(), leaves)
                    .orElseGet(
                            () -> new TableStatistics(table.display(), 0, 0, 0, Optional.empty(), Optional.empty())));
        }
    }

    private static Optional<OpenTransaction> oldestTransaction(Connection connection, Instant now) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(OLDEST_TRANSACTION);
                ResultSet rows = statement.executeQuery()) {
            if (!rows.next()) {
                return Optional.empty();
            }
            Instant started = rows.getTimestamp(4).toInstant();
            return Optional.of(new OpenTransaction(
                    rows.getInt(1),
                    rows.getString(2),
                    rows.getString(6),
                    rows.getString(7),
                    rows.getString(3),
                    started,
                    instant(rows.getTimestamp(8)),
                    ageAt(started, now),
                    rows.getLong(5)));
        }
    }

    private static List<PreparedTransaction> preparedTransactions(Connection connection, Instant now)
            throws SQLException {
        List<PreparedTransaction> prepared = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(PREPARED_TRANSACTIONS);
                ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                Instant at = rows.getTimestamp(3).toInstant();
                prepared.add(new PreparedTransaction(
                        rows.getString(1), rows.getString(2), at, ageAt(at, now), rows.getLong(4)));
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
                slots.add(new ReplicationSlotHold(
                        rows.getString(1), rows.getString(2), rows.getBoolean(3), activePid, xminAge, catalogXminAge));
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
