package dev.outboxjava.postgres;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.testkit.contract.OrderedOutboxStoreContract;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The PostgreSQL store with per-key ordering passes the ordered-store contract in each layout. */
@ParameterizedClass(name = "{0}")
@EnumSource(StoreLayout.class)
class PostgresOrderedOutboxStoreContractIT extends OrderedOutboxStoreContract {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private final ContractTables tables;

    PostgresOrderedOutboxStoreContractIT(StoreLayout layout) {
        this.tables = new ContractTables(postgres, ContractTables.prefix("ordered", layout), layout);
    }

    @Override
    protected OutboxStore newStore(Ordering ordering) {
        return tables.create(ordering);
    }

    @Override
    protected void append(OutboxStore store, List<OutboxEvent> events) {
        ContractTables.append(store, events);
    }

    @Override
    protected ProducerTransaction begin(OutboxStore store) {
        return tables.begin(store);
    }

    @Override
    protected void destroy(OutboxStore store) {
        tables.drop(store);
    }
}
