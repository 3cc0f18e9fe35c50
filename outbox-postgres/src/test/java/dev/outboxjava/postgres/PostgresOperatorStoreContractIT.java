package dev.outboxjava.postgres;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.testkit.contract.OperatorStoreContract;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The operator API of the default layout passes its contract, each test on a fresh table and audit table. */
class PostgresOperatorStoreContractIT extends OperatorStoreContract {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static int tables;

    @Override
    protected OutboxStore newStore(Ordering ordering) {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName(postgres.schema() + ".operator_" + ++tables)
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
        String table = ((PostgresOutboxStore) store).config().tableName();
        postgres.fixture().execute("DROP TABLE " + table + ", " + table + "_audit");
    }
}
