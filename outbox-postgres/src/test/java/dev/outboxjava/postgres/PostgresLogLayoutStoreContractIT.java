package dev.outboxjava.postgres;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.testkit.contract.OutboxStoreContract;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The experimental append-only layout ({@link StoreLayout#APPEND_LOG}) passes the store contract, each
 * test on fresh tables in this class's schema.
 */
class PostgresLogLayoutStoreContractIT extends OutboxStoreContract {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final ContractTables tables = new ContractTables(postgres, "log_outbox", StoreLayout.APPEND_LOG);

    @Override
    protected OutboxStore newStore() {
        return tables.create(Ordering.none());
    }

    @Override
    protected void append(OutboxStore store, List<OutboxEvent> events) {
        ContractTables.append(store, events);
    }

    /** Sent events go with their partition (see {@code LogLayoutRetentionIT}). */
    @Override
    protected boolean cleansUpRowByRow() {
        return false;
    }

    @Override
    protected void destroy(OutboxStore store) {
        tables.drop(store);
    }
}
