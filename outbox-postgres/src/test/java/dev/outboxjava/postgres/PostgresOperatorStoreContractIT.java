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

    private static final ContractTables tables = new ContractTables(postgres, "operator", StoreLayout.IN_PLACE);

    @Override
    protected OutboxStore newStore(Ordering ordering) {
        return tables.create(ordering);
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
