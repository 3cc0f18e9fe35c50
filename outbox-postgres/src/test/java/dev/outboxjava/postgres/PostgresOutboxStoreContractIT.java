package dev.outboxjava.postgres;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.testkit.contract.OutboxStoreContract;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The PostgreSQL store passes the store contract, each test on a fresh table in this class's schema. */
class PostgresOutboxStoreContractIT extends OutboxStoreContract {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static int tables;

    @Override
    protected OutboxStore newStore() {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName(postgres.schema() + ".outbox_" + (++tables))
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
