package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.OutboxTable;
import dev.outboxjava.postgres.internal.inplace.LeaseQuery;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lease commits without waiting for the WAL flush, and only the lease: the setting must never
 * stay on a pooled connection, where a producer's commit would pick it up and lose its durability.
 */
class LeaseCommitIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    @Test
    @DisplayName("the lease statement switches its own transaction to synchronous_commit = off")
    void leaseTransactionCommitsAsynchronously() throws SQLException {
        try (PostgresOutboxStore store = store(Ordering.none());
                Connection connection = postgres.fixture().openConnection()) {
            store.transactional().inTransaction(c -> TestEvents.events(clock, 3));
            LeaseQuery lease = new LeaseQuery(new OutboxTable(
                    Identifiers.tableName("tableName", store.config().tableName())));
            connection.setAutoCommit(false);

            List<OutboxEvent> leased = lease.lease(connection, UUID.randomUUID(), 10, clock.instant());

            assertThat(leased).hasSize(3);
            assertThat(synchronousCommit(connection))
                    .as("inside the lease's transaction")
                    .isEqualTo("off");
            connection.commit();
            assertThat(synchronousCommit(connection))
                    .as("after the lease's transaction")
                    .isEqualTo("on");
        }
    }

    @Test
    @DisplayName("after leases, plain and per key, the pooled connection still commits synchronously")
    void settingDoesNotLeakIntoThePool() throws SQLException {
        for (Ordering ordering : List.of(Ordering.none(), Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY))) {
            try (PostgresOutboxStore store = store(ordering)) {
                store.transactional().inTransaction(c -> TestEvents.events(clock, 3));

                assertThat(store.lease(UUID.randomUUID(), 10, clock.instant())).hasSize(3);

                try (Connection pooled = store.dataSource().getConnection()) { // the pool's only connection
                    assertThat(synchronousCommit(pooled))
                            .as("after a lease with %s", ordering)
                            .isEqualTo("on");
                }
            }
        }
    }

    /** A store with a pool of one connection, so the lease and the check share it; a new table each time. */
    private static PostgresOutboxStore store(Ordering ordering) {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .tableName(postgres.fixture().newTableName())
                .ordering(ordering)
                .wakeUpMode(WakeUpMode.NONE)
                .maximumPoolSize(1)
                .build();
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.fixture().jdbcUrl(),
                postgres.fixture().user(),
                postgres.fixture().password(),
                config);
        store.ensureSchema();
        return store;
    }

    private static String synchronousCommit(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SHOW synchronous_commit")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
