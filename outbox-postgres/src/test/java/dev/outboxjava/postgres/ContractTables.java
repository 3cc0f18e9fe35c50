package dev.outboxjava.postgres;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.testkit.contract.OrderedOutboxStoreContract;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The contract suites' stores: each test gets a table of its own (and the layout's side tables), in the
 * extension's schema, dropped after it.
 */
final class ContractTables {

    private static final AtomicInteger TABLES = new AtomicInteger();

    private final PostgresExtension postgres;
    private final String prefix;
    private final StoreLayout layout;

    ContractTables(PostgresExtension postgres, String prefix, StoreLayout layout) {
        this.postgres = postgres;
        this.prefix = prefix;
        this.layout = layout;
    }

    /** A suite's table prefix in {@code layout}: {@code name}, or {@code log_name} for the append-only layout. */
    static String prefix(String name, StoreLayout layout) {
        return layout == StoreLayout.IN_PLACE ? name : "log_" + name;
    }

    /** A store on a new table of this layout, with the ordering's indexes. */
    PostgresOutboxStore create(Ordering ordering) {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .tableName(postgres.schema() + "." + prefix + "_" + TABLES.incrementAndGet())
                        .layout(layout)
                        .ordering(ordering)
                        .build());
        store.ensureSchema();
        postgres.fixture()
                .execute("CREATE TABLE " + aggregatesTable(store) + " (key text PRIMARY KEY, writers bigint NOT NULL)");
        return store;
    }

    /** Appends in one transaction of the store's own. */
    static void append(OutboxStore store, List<OutboxEvent> events) {
        ((PostgresOutboxStore) store).transactional().inTransaction(connection -> events);
    }

    /**
     * A producer transaction on its own connection: {@code lock} upserts the key's row of an aggregates table
     * beside the outbox table (a row lock and a write, so the transaction has its id from then on, as a
     * service's transaction has once it locked an aggregate), {@code append} goes through the store's writer.
     */
    OrderedOutboxStoreContract.ProducerTransaction begin(OutboxStore store) {
        PostgresOutboxStore postgresStore = (PostgresOutboxStore) store;
        String aggregates = aggregatesTable(postgresStore);
        Connection connection;
        try {
            connection = postgres.dataSource().getConnection();
            connection.setAutoCommit(false);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return new OrderedOutboxStoreContract.ProducerTransaction() {
            @Override
            public long lock(String key) {
                try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO " + aggregates
                        + " AS a (key, writers) VALUES (?, 1) ON CONFLICT (key) DO UPDATE SET writers = a.writers + 1"
                        + " RETURNING writers")) {
                    upsert.setString(1, key);
                    try (ResultSet row = upsert.executeQuery()) {
                        row.next();
                        return row.getLong(1);
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public void append(List<OutboxEvent> events) {
                postgresStore.writer().append(connection, events);
            }

            @Override
            public void commit() {
                try (connection) {
                    connection.commit();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    private static String aggregatesTable(PostgresOutboxStore store) {
        return store.config().tableName() + "_aggregates";
    }

    /** Drops the table, its layout's side tables and its operator audit table. */
    void drop(OutboxStore store) {
        String table = ((PostgresOutboxStore) store).config().tableName();
        postgres.fixture()
                .execute(
                        layout == StoreLayout.APPEND_LOG
                                ? LogLayoutDdl.drop(Identifiers.tableName("tableName", table))
                                : "DROP TABLE " + table);
        postgres.fixture()
                .execute("DROP TABLE IF EXISTS " + table + "_audit, " + table + "_attempts, " + table + "_aggregates");
    }
}
