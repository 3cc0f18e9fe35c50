package dev.outboxjava.postgres;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.testkit.contract.OperatorStoreContract;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The operator API of the experimental append-only layout passes its contract, each test on fresh tables. */
class PostgresLogLayoutOperatorStoreContractIT extends OperatorStoreContract {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static int tables;

    @Override
    protected OutboxStore newStore(Ordering ordering) {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName(postgres.schema() + ".log_operator_" + ++tables)
                .layout(StoreLayout.APPEND_LOG)
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
        postgres.fixture().execute(LogLayoutDdl.drop(Identifiers.tableName("tableName", table)));
        postgres.fixture().execute("DROP TABLE " + table + "_audit");
    }
}
