package dev.outboxjava.postgres;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.testkit.contract.OrderedOutboxStoreContract;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The PostgreSQL store with per-key ordering passes the ordered-store contract. */
class PostgresOrderedOutboxStoreContractIT extends OrderedOutboxStoreContract {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static int tables;

    @Override
    protected OutboxStore newStore(Ordering ordering) {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName(postgres.schema() + ".ordered_" + (++tables))
                .ordering(ordering)
                .build();
        PostgresOutboxStore store = PostgresOutboxStore.create(postgres.dataSource(), config);
        store.ensureSchema();
        return store;
    }

    @Override
    protected void append(OutboxStore store, List<OutboxEvent> events) {
        ((PostgresOutboxStore) store).transactional().inTransaction(connection -> events);
    }

    @Override
    protected void destroy(OutboxStore store) {
        postgres.fixture().execute("DROP TABLE " + ((PostgresOutboxStore) store).config().tableName());
    }
}
