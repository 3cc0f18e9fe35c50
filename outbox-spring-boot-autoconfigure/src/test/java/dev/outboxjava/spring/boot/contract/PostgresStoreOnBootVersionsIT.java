package dev.outboxjava.spring.boot.contract;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.testkit.contract.OutboxStoreContract;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The PostgreSQL store passes its contract unchanged on the versions Spring Boot manages (jOOQ,
 * pgjdbc, HikariCP, Jackson of Boot's dependency management), which is what it runs on in a Spring
 * Boot service.
 */
class PostgresStoreOnBootVersionsIT extends OutboxStoreContract {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static int tables;

    @Override
    protected OutboxStore newStore() {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .tableName(postgres.schema() + ".outbox_" + (++tables))
                        .build());
        store.ensureSchema();
        return store;
    }

    /** The default layout drops whole partitions of published events, not rows one by one. */
    @Override
    protected boolean cleansUpRowByRow() {
        return false;
    }

    @Override
    protected void append(OutboxStore store, List<OutboxEvent> events) {
        ((PostgresOutboxStore) store).transactional().inTransaction(connection -> events);
    }

    @Override
    protected void destroy(OutboxStore store) {
        // with the views over it; the side tables of the append-only layout go with the test's schema
        postgres.fixture()
                .execute("DROP TABLE " + ((PostgresOutboxStore) store).config().tableName() + " CASCADE");
    }
}
