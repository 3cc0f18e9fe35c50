package dev.outboxjava.postgres;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.testkit.postgres.PostgresExtension;
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
        return store;
    }

    /** Appends in one transaction of the store's own. */
    static void append(OutboxStore store, List<OutboxEvent> events) {
        ((PostgresOutboxStore) store).transactional().inTransaction(connection -> events);
    }

    /** Drops the table, its layout's side tables and its operator audit table. */
    void drop(OutboxStore store) {
        String table = ((PostgresOutboxStore) store).config().tableName();
        postgres.fixture()
                .execute(
                        layout == StoreLayout.APPEND_LOG
                                ? LogLayoutDdl.drop(Identifiers.tableName("tableName", table))
                                : "DROP TABLE " + table);
        postgres.fixture().execute("DROP TABLE IF EXISTS " + table + "_audit, " + table + "_attempts");
    }
}
