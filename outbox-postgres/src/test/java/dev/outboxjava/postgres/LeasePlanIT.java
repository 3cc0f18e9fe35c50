package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.OutboxTable;
import dev.outboxjava.postgres.internal.SchemaDdl;
import dev.outboxjava.postgres.internal.inplace.LeaseQuery;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lease query stays on the partial index of pending rows with 1,000,000 sent rows in the table,
 * as a custom plan and as the generic plan a server-prepared statement gets. (How long the lease takes on
 * such a table is measured by the benchmarks' {@code LeaseTimeBenchmark}.)
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LeasePlanIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final int SENT_ROWS = 1_000_000;
    private static final int BATCH = 100;

    private static PostgresOutboxStore store;
    private static String pendingIndex;
    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    @BeforeAll
    static void createTable() {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .tableName(postgres.schema() + ".outbox_events")
                .wakeUpMode(WakeUpMode.NONE)
                .build();
        store = PostgresOutboxStore.create(postgres.dataSource(), config);
        store.ensureSchema();
        pendingIndex = SchemaDdl.pendingIndex(Identifiers.tableName("tableName", config.tableName()));
    }

    @AfterAll
    static void dropTable() {
        postgres.fixture().execute("DROP TABLE IF EXISTS " + store.config().tableName());
    }

    @Test
    @Order(1)
    @DisplayName("with 1,000,000 sent rows the lease query plans an index scan on the pending partial index")
    void customPlan() throws SQLException {
        postgres.fixture()
                .execute("INSERT INTO " + store.config().tableName() + " (id, type, source, destination, "
                        + "content_type, payload, status, attempts, max_attempts, next_attempt_at, created_at, leased_at, "
                        + "lease_id, sent_at) SELECT gen_random_uuid(), 'order.placed', '/orders', 'orders', "
                        + "'application/json', convert_to(repeat('x', 64), 'UTF8'), 'sent', 0, 10, "
                        + "timestamptz '2023-12-01' + n * interval '1 second', timestamptz '2023-12-01' + n * interval '1 second', "
                        + "timestamptz '2023-12-01' + n * interval '1 second', gen_random_uuid(), "
                        + "timestamptz '2023-12-01' + n * interval '1 second' FROM generate_series(1, " + SENT_ROWS
                        + ") AS n");
        postgres.fixture().execute("VACUUM ANALYZE " + store.config().tableName());
        store.transactional().inTransaction(connection -> TestEvents.events(clock, BATCH));

        String plan = explainPrepared("force_custom_plan");

        assertThat(plan)
                .as("lease plan with %d sent rows:%n%s", SENT_ROWS, plan)
                .contains(pendingIndex)
                .doesNotContain("Seq Scan");
    }

    @Test
    @Order(2)
    @DisplayName("the generic plan of the prepared lease statement uses the pending partial index too")
    void genericPlan() throws SQLException {
        String plan = explainPrepared("force_generic_plan");
        assertThat(plan)
                .as("generic lease plan:%n%s", plan)
                .contains(pendingIndex)
                .doesNotContain("Seq Scan");
    }

    @Test
    @Order(3)
    @DisplayName(
            "after more executions than prepareThreshold the driver's server-prepared lease runs a generic index plan")
    void serverPreparedStatement() throws SQLException {
        List<String> plans = new ArrayList<>();
        try (Connection connection = postgres.dataSource().getConnection()) {
            boolean autoExplain = loadAutoExplain(connection);
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET plan_cache_mode = force_generic_plan");
            }
            LeaseQuery lease = leaseQuery();
            int executions = 12;
            for (int i = 0; i < executions; i++) {
                List<OutboxEvent> leased = lease.lease(connection, UUID.randomUUID(), 1, clock.instant());
                assertThat(leased).hasSize(1);
            }
            // once more with the same text on a statement of the test's own, whose warnings carry
            // auto_explain's report: pgjdbc finds the text in its cache and runs the server-prepared lease
            try (PreparedStatement statement = connection.prepareStatement(lease.sql())) {
                statement.setObject(1, UUID.randomUUID());
                statement.setObject(2, clock.instant().atOffset(ZoneOffset.UTC));
                statement.setObject(3, clock.instant().atOffset(ZoneOffset.UTC));
                statement.setInt(4, 1);
                try (ResultSet rs = statement.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                }
                collect(statement.getWarnings(), plans);
            }
            executions++;
            try (Statement statement = connection.createStatement();
                    ResultSet rs = statement.executeQuery("SELECT generic_plans FROM pg_prepared_statements "
                            + "WHERE statement ILIKE '%skip locked%' AND NOT from_sql ORDER BY generic_plans DESC")) {
                assertThat(rs.next())
                        .as("the driver prepared the lease statement on the server")
                        .isTrue();
                assertThat(rs.getLong(1))
                        .as("generic-plan executions of the server-prepared lease (%d in this test)", executions)
                        .isPositive();
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute("RESET plan_cache_mode");
                if (autoExplain) {
                    statement.execute("RESET auto_explain.log_min_duration");
                    statement.execute("RESET auto_explain.log_level");
                }
                statement.execute("DEALLOCATE ALL");
            }
            if (autoExplain) {
                assertThat(plans).as("auto_explain reported the executed plans").isNotEmpty();
                String last = plans.get(plans.size() - 1);
                assertThat(last)
                        .as("executed plan of the last server-prepared lease (auto_explain):%n%s", last)
                        .contains(pendingIndex)
                        .doesNotContain("Seq Scan");
            }
        }
    }

    private static LeaseQuery leaseQuery() {
        return new LeaseQuery(
                new OutboxTable(Identifiers.tableName("t", store.config().tableName())));
    }

    /** EXPLAIN of the lease statement's exact text, PREPAREd, under the given {@code plan_cache_mode}. */
    private String explainPrepared(String planCacheMode) throws SQLException {
        return PreparedPlans.explain(
                postgres.dataSource(),
                leaseQuery().sql(),
                planCacheMode,
                "'" + UUID.randomUUID() + "', '" + clock.instant() + "', '" + clock.instant() + "', " + BATCH);
    }

    private static boolean loadAutoExplain(Connection connection) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("LOAD 'auto_explain'");
            statement.execute("SET auto_explain.log_min_duration = 0");
            statement.execute("SET auto_explain.log_level = notice");
            return true;
        } catch (SQLException e) {
            System.out.println("cannot load auto_explain: " + e.getMessage());
            return false;
        }
    }

    private static void collect(SQLWarning warnings, List<String> plans) {
        for (SQLWarning warning = warnings; warning != null; warning = warning.getNextWarning()) {
            if (warning.getMessage() != null && warning.getMessage().contains("Query Text")) {
                plans.add(warning.getMessage());
            }
        }
    }
}
