package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A per-key table made from the shipped migration lacks the per-key lease's indexes; leasing works
 * without them, so the store has to say so.
 */
@DisplayName("PostgreSQL store with per-key ordering on a table without the per-key indexes")
class PerKeyIndexCheckIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final AtomicInteger TABLES = new AtomicInteger();
    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    private PostgresOutboxConfig config(Ordering ordering) {
        return PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .tableName(postgres.schema() + ".key_indexes_" + TABLES.incrementAndGet())
                .ordering(ordering)
                .build();
    }

    /** A store on what a team gets from the shipped migration: the table as for unordered relays. */
    private static PostgresOutboxStore storeOnShippedTable(PostgresOutboxConfig config) {
        PostgresSchema.apply(
                postgres.dataSource(),
                config.toBuilder().ordering(Ordering.none()).build());
        return PostgresOutboxStore.create(postgres.dataSource(), config);
    }

    /** A store on a table made by its own configuration's DDL. */
    private static PostgresOutboxStore storeOnCompleteTable(PostgresOutboxConfig config) {
        PostgresOutboxStore store = PostgresOutboxStore.create(postgres.dataSource(), config);
        store.ensureSchema();
        return store;
    }

    private static void append(PostgresOutboxStore store, List<OutboxEvent> events) throws Exception {
        try (Connection connection = postgres.fixture().openConnection()) {
            store.writer().append(connection, events);
        }
    }

    @Test
    @DisplayName("the first lease warns once, naming both indexes and where their DDL comes from; leasing still works")
    void firstLeaseWarnsOnce() throws Exception {
        PostgresOutboxConfig config = config(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY));
        PostgresOutboxStore store = storeOnShippedTable(config);
        append(store, TestEvents.events(clock, 3));

        // leases until all three came, in batches of two: another session's open transaction on a shared
        // server may hold keyed events back for a moment (the commit-order guard)
        List<UUID> leased = new ArrayList<>();
        String stderr = capturingStandardError(() -> await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> {
                    store.lease(UUID.randomUUID(), 2, clock.instant()).forEach(event -> leased.add(event.id()));
                    assertThat(leased).hasSize(3);
                }));

        String table = config.table().table();
        assertThat(stderr.lines().filter(line -> line.contains("WARN")))
                .singleElement()
                .asString()
                .contains(
                        config.tableName(),
                        table + "_key_guard_idx",
                        table + "_key_held_idx",
                        "PostgresSchema.ddl(config)");
    }

    @Test
    @DisplayName("the health check stays up and names the indexes still missing, until the per-key DDL is applied")
    void healthCheckNamesMissingIndexes() {
        PostgresOutboxConfig config = config(Ordering.perKey(Ordering.AfterDeadLetter.CONTINUE));
        PostgresOutboxStore store = storeOnShippedTable(config);
        String table = config.table().table();
        postgres.fixture()
                .execute("CREATE INDEX " + table + "_key_held_idx ON " + config.tableName()
                        + " (event_key, seq) WHERE status IN ('in_flight', 'failed') AND event_key IS NOT NULL");

        HealthCheck withOneIndex = store.checkHealth();
        assertThat(withOneIndex.healthy()).isTrue();
        assertThat(withOneIndex.detail()).contains(table + "_key_guard_idx").doesNotContain(table + "_key_held_idx");

        store.ensureSchema();
        HealthCheck complete = store.checkHealth();
        assertThat(complete.healthy()).isTrue();
        assertThat(complete.detail()).doesNotContain("_idx", "lacks");
    }

    @Test
    @DisplayName("an index a failed CREATE INDEX CONCURRENTLY left invalid counts as missing")
    void invalidIndexCountsAsMissing() throws Exception {
        PostgresOutboxConfig config = config(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY));
        PostgresOutboxStore store = storeOnCompleteTable(config);
        String table = config.table().table();
        append(store, List.of(TestEvents.event(clock, "same"), TestEvents.event(clock, "same")));
        postgres.fixture().execute("DROP INDEX " + postgres.schema() + "." + table + "_key_guard_idx");
        // two events of one key break the unique index half-way: PostgreSQL keeps it, marked invalid
        assertThatThrownBy(() -> postgres.fixture()
                        .execute("CREATE UNIQUE INDEX CONCURRENTLY " + table + "_key_guard_idx ON " + config.tableName()
                                + " (event_key)"))
                .hasMessageContaining("duplicate");

        assertThat(store.checkHealth().detail())
                .contains(table + "_key_guard_idx")
                .doesNotContain(table + "_key_held_idx");
    }

    @Test
    @DisplayName("a table made with the per-key DDL gets no warning, and an unordered store never looks")
    void noWarningWhenNotNeeded() throws Exception {
        PostgresOutboxStore ordered = storeOnCompleteTable(config(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY)));
        PostgresOutboxStore plain = storeOnCompleteTable(config(Ordering.none()));

        String stderr = capturingStandardError(() -> {
            ordered.lease(UUID.randomUUID(), 10, clock.instant());
            plain.lease(UUID.randomUUID(), 10, clock.instant());
        });

        assertThat(stderr.lines().filter(line -> line.contains("WARN"))).isEmpty();
        assertThat(plain.checkHealth().detail()).doesNotContain("per-key");
    }

    /** What the store logs (slf4j-simple writes to the current {@code System.err}) while {@code work} runs. */
    private static String capturingStandardError(Work work) throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            work.run();
        } finally {
            System.setErr(original);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        original.print(text);
        return text;
    }

    @FunctionalInterface
    private interface Work {
        void run() throws Exception;
    }
}
