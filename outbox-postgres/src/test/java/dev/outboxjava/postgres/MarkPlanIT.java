package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.MarkQueries;
import dev.outboxjava.postgres.internal.OutboxTable;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.SQLException;
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
 * The marks find their rows by primary key, as the generic plan of a server-prepared statement too. Every lease leaves an entry in the in-flight partial index that only vacuum removes;
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
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .tableName(postgres.schema() + ".outbox_events")
                .wakeUpMode(WakeUpMode.NONE)
                .build();
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
        inFlight = store.lease(inFlightLease, 10, clock.instant()).stream()
                .map(OutboxEvent::id)
                .toList();
        postgres.fixture().execute("ANALYZE " + store.config().tableName());
    }

    @AfterAll
    static void dropTable() {
        postgres.fixture().execute("DROP TABLE IF EXISTS " + store.config().tableName());
    }

    @ParameterizedTest
    @EnumSource(CompletionMode.class)
    @DisplayName(
            "the generic plan of the published mark finds its rows by primary key, never through the in-flight index")
    void publishedMarkUsesThePrimaryKey(CompletionMode mode) throws SQLException {
        OutboxTable table =
                new OutboxTable(Identifiers.tableName("t", store.config().tableName()));
        String sql = new MarkQueries(table, mode).publishedSql();
        String ids = inFlight.stream().map(UUID::toString).collect(Collectors.joining(",", "'{", "}'"));
        String args = (mode == CompletionMode.KEEP_SENT ? "'" + clock.instant() + "', " : "") + ids + ", '"
                + inFlightLease + "'";

        String plan = PreparedPlans.explain(postgres.dataSource(), sql, "force_generic_plan", args);

        assertThat(plan).as(plan).contains("outbox_events_pkey").doesNotContain("in_flight_idx");
    }

    @ParameterizedTest
    @EnumSource(names = {"RETRY", "DEAD_LETTER"})
    @DisplayName(
            "the generic plans of the retry and dead-letter marks find their rows by primary key, never through the in-flight index")
    void perEventMarksUseThePrimaryKey(Mark mark) throws SQLException {
        OutboxTable table =
                new OutboxTable(Identifiers.tableName("t", store.config().tableName()));
        MarkQueries marks = new MarkQueries(table, CompletionMode.KEEP_SENT);
        String ids = inFlight.stream().map(UUID::toString).collect(Collectors.joining(",", "'{", "}'"));
        String errors = inFlight.stream().map(id -> "boom").collect(Collectors.joining(",", "'{", "}'"));
        String times =
                inFlight.stream().map(id -> clock.instant().toString()).collect(Collectors.joining(",", "'{", "}'"));
        String lease = "'" + inFlightLease + "'";
        String plan = mark == Mark.RETRY
                ? PreparedPlans.explain(
                        postgres.dataSource(),
                        marks.retrySql(),
                        "force_generic_plan",
                        ids + ", " + errors + ", " + times + ", " + lease)
                : PreparedPlans.explain(
                        postgres.dataSource(),
                        marks.deadLetterSql(),
                        "force_generic_plan",
                        ids + ", " + errors + ", " + lease);

        assertThat(plan).as(plan).contains("outbox_events_pkey").doesNotContain("in_flight_idx");
    }

    enum Mark {
        RETRY,
        DEAD_LETTER
    }
}
