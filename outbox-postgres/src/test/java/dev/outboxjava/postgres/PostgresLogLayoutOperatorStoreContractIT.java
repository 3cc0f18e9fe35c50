package dev.outboxjava.postgres;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.testkit.contract.OperatorStoreContract;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The operator API of the experimental append-only layout passes its contract, each test on fresh tables. */
class PostgresLogLayoutOperatorStoreContractIT extends OperatorStoreContract {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final ContractTables tables = new ContractTables(postgres, "log_operator", StoreLayout.APPEND_LOG);

    @Override
    protected OutboxStore newStore(Ordering ordering) {
        return tables.create(ordering);
    }

    @Override
    protected void append(OutboxStore store, List<OutboxEvent> events) {
        ContractTables.append(store, events);
    }

    /** Sent events go with their partition (see {@code LogLayoutRetentionIT}), their attempts at a later clean-up. */
    @Override
    protected boolean cleansUpRowByRow() {
        return false;
    }

    @Override
    protected void destroy(OutboxStore store) {
        tables.drop(store);
    }
}
