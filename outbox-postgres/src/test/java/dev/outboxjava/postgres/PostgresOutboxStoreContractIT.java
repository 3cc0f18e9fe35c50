package dev.outboxjava.postgres;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.testkit.contract.OutboxStoreContract;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The PostgreSQL store passes the store contract in each layout ({@link StoreLayout}), each test on fresh
 * tables in this class's schema.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(StoreLayout.class)
class PostgresOutboxStoreContractIT extends OutboxStoreContract {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private final StoreLayout layout;
    private final ContractTables tables;

    PostgresOutboxStoreContractIT(StoreLayout layout) {
        this.layout = layout;
        this.tables = new ContractTables(postgres, ContractTables.prefix("outbox", layout), layout);
    }

    @Override
    protected OutboxStore newStore() {
        return tables.create(Ordering.none());
    }

    @Override
    protected void append(OutboxStore store, List<OutboxEvent> events) {
        ContractTables.append(store, events);
    }

    /** The append-only layout's sent events go with their partition (see {@code LogLayoutRetentionIT}). */
    @Override
    protected boolean cleansUpRowByRow() {
        return layout == StoreLayout.IN_PLACE;
    }

    @Override
    protected void destroy(OutboxStore store) {
        tables.drop(store);
    }
}
