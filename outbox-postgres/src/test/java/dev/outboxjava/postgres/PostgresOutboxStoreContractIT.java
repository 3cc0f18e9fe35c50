package dev.outboxjava.postgres;

import dev.outboxjava.core.Ordering;
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

    private static final ContractTables tables = new ContractTables(postgres, "outbox", StoreLayout.IN_PLACE);

    @Override
    protected OutboxStore newStore() {
        return tables.create(Ordering.none());
    }

    @Override
    protected void append(OutboxStore store, List<OutboxEvent> events) {
        ContractTables.append(store, events);
    }

    @Override
    protected void destroy(OutboxStore store) {
        tables.drop(store);
    }
}
