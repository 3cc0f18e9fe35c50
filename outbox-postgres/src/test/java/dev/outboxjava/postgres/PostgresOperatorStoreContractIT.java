package dev.outboxjava.postgres;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.testkit.contract.OperatorStoreContract;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The operator API passes its contract in each layout, each test on fresh tables and an audit table. */
@ParameterizedClass(name = "{0}")
@EnumSource(StoreLayout.class)
class PostgresOperatorStoreContractIT extends OperatorStoreContract {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private final StoreLayout layout;
    private final ContractTables tables;

    PostgresOperatorStoreContractIT(StoreLayout layout) {
        this.layout = layout;
        this.tables = new ContractTables(postgres, ContractTables.prefix("operator", layout), layout);
    }

    @Override
    protected OutboxStore newStore(Ordering ordering) {
        return tables.create(ordering);
    }

    @Override
    protected void append(OutboxStore store, List<OutboxEvent> events) {
        ContractTables.append(store, events);
    }

    /**
     * The append-only layout's sent events go with their partition (see {@code LogLayoutRetentionIT}), their
     * attempts at a later clean-up.
     */
    @Override
    protected boolean cleansUpRowByRow() {
        return layout == StoreLayout.IN_PLACE;
    }

    @Override
    protected void destroy(OutboxStore store) {
        tables.drop(store);
    }
}
