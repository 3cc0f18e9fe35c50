package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.MarkQueries;
import dev.outboxjava.postgres.internal.OutboxTable;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The published mark finds its rows by primary key, as the generic plan of a server-prepared
 * statement too. Every lease leaves an entry in the in-flight partial index that only vacuum removes;
 * a plan that intersected that index with the primary key walked thousands of such entries per mark
 * under a steady flow, while the planner, from the statistics, took the index for nearly empty.
 */
class MarkPlanIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final int EVENTS = 5_000;
    private static final int BATCH = 500;

    private static PostgresOutboxStore store;
    private static List<UUID> inFlight;
    private static UUID inFlightLease;
    private static final ManualClock clock = ManualClock.startingAtEpochOf2024();

    @BeforeAll
    static void leasedAndPublishedRows() {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder().tableName(postgres.schema() + ".outbox_events")
                .wakeUpMode(WakeUpMode.NONE).build();
        store = PostgresOutboxStore.create(postgres.dataSource(), config);
        store.ensureSchema();
        // The steady state in small: many rows leased and marked since the last vacuum, a few in flight.
        for (int appended = 0; appended < EVENTS; appended += BATCH) {
            store.transactional().inTransaction(connection -> TestEvents.events(clock, BATCH));
            UUID lease = UUID.randomUUID();
            List<OutboxEvent> leased = store.lease(lease, BATCH, clock.instant());
            store.markPublished(lease, leased.stream().map(OutboxEvent::id).toList(), clock.instant());
        }
        store.transactional().inTransaction(connection -> TestEvents.events(clock, 10));
        inFlightLease = UUID.randomUUID();
        inFlight = store.lease(inFlightLease, 10, clock.instant()).stream().map(OutboxEvent::id).toList();
        postgres.fixture().execute("ANALYZE " + store.config().tableName());
    }

    @AfterAll
    static void dropTable() {
        postgres.fixture().execute("DROP TABLE IF EXISTS " + store.config().tableName());
    }

    @ParameterizedTest
    @EnumSource(CompletionMode.class)
    @DisplayName("the generic plan of the published mark finds its rows by primary key, never through the in-flight index")
    void publishedMarkUsesThePrimaryKey(CompletionMode mode) throws SQLException {
        OutboxTable table = new OutboxTable(Identifiers.tableName("t", store.config().tableName()));
        String sql = numberedParameters(new MarkQueries(table, mode).publishedSql());
        String ids = inFlight.stream().map(UUID::toString).collect(Collectors.joining(",", "'{", "}'"));
        String args = (mode == CompletionMode.KEEP_SENT ? "'" + clock.instant() + "', " : "") + ids + ", '"
                + inFlightLease + "'";

        String plan;
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("SET plan_cache_mode = force_generic_plan");
            statement.execute("PREPARE mark_plan AS " + sql);
            try {
                plan = explain(statement, "EXPLAIN EXECUTE mark_plan(" + args + ")"); // plans only, runs nothing
            } finally {
                statement.execute("DEALLOCATE mark_plan");
                statement.execute("RESET plan_cache_mode");
            }
        }

        assertThat(plan).as(plan).contains("outbox_events_pkey").doesNotContain("in_flight_idx");
    }

    private static String explain(Statement statement, String sql) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = statement.executeQuery(sql)) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }

    /** JDBC's '?' as $1, $2, ... for PREPARE (the mark has no '?' inside literals). */
    private static String numberedParameters(String sql) {
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char c : sql.toCharArray()) {
            numbered.append(c == '?' ? "$" + ++n : String.valueOf(c));
        }
        return numbered.toString();
    }
}
