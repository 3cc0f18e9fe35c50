package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.postgres.internal.OutboxTable;
import dev.outboxjava.postgres.internal.PreparedSql;
import dev.outboxjava.postgres.internal.inplace.OrderedLeaseQuery;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The per-key lease on few hot keys with deep backlogs: held keys are rejected by a lookup, not by
 * probing each candidate's earlier events, and the plan stays on indexes even with a single key.
 * Checked with {@code EXPLAIN ANALYZE} of the store's own statement under the store's own settings,
 * over the whole backlog as one window (the most a statement can be given); the times are printed, not
 * asserted. {@code -Doutbox.ordering.plan-events=100000} runs it on a larger backlog.
 */
@DisplayName("Per-key lease plan on hot keys")
class PerKeyLeasePlanIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final AtomicInteger TABLES = new AtomicInteger();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Ordering ORDERING = Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY);

    private static final int EVENTS = Integer.getInteger("outbox.ordering.plan-events", 20_000);
    private static final int HOT_KEYS = 100;

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    /** How a key's head holds the rest of the key back. */
    enum Hold {
        IN_FLIGHT,
        WAITING_FOR_RETRY,
        DEAD_LETTERED
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Hold.class)
    @DisplayName(
            "with every one of 100 hot keys held at its head, a lease looks at each other candidate once, takes none,"
                    + " and probes only for dead letters")
    void heldHotKeys(Hold hold) throws Exception {
        int events = EVENTS / HOT_KEYS * HOT_KEYS;
        PostgresOutboxStore store = storeWith(HOT_KEYS, events / HOT_KEYS);
        UUID lease = UUID.randomUUID();
        List<OutboxEvent> heads = store.lease(lease, HOT_KEYS, clock.instant());
        assertThat(heads)
                .extracting(OutboxEvent::keyOrEmpty)
                .as("the first lease takes each key's head")
                .doesNotHaveDuplicates()
                .hasSize(HOT_KEYS);
        switch (hold) {
            case IN_FLIGHT -> {}
            case WAITING_FOR_RETRY ->
                store.markRetry(
                        lease,
                        heads.stream()
                                .map(e -> new RetryMark(
                                        e.id(), "broker down", clock.instant().plus(Duration.ofHours(1))))
                                .toList(),
                        clock.instant());
            case DEAD_LETTERED ->
                store.markDeadLettered(
                        lease,
                        heads.stream()
                                .map(e -> new DeadLetterMark(e.id(), "rejected"))
                                .toList(),
                        clock.instant());
        }

        JsonNode plan = explainLease(
                store, 500, "%,d events over %d hot keys, every key held (%s)".formatted(events, HOT_KEYS, hold));

        assertNoScanOutsideIndexes(plan);
        JsonNode candidates = candidateScan(plan);
        assertThat(candidates.path("Index Name").asText()).endsWith("_pending_idx");
        assertThat(candidates.path("Actual Rows").asLong()).isZero();
        long heldCandidates = events - HOT_KEYS;
        assertThat(candidates.path("Rows Removed by Filter").asLong())
                .as("every held candidate looked at once")
                .isEqualTo(heldCandidates);
        assertThat(probeLoops(candidates, "_key_held_idx"))
                .as("probes for an earlier event holding the key")
                .isEqualTo(hold == Hold.DEAD_LETTERED ? heldCandidates : 0);
        assertThat(probeLoops(candidates, "_key_guard_idx"))
                .as("commit-order guard probes")
                .isZero();
        assertThat(store.lease(UUID.randomUUID(), 500, clock.instant())).isEmpty();

        if (hold == Hold.IN_FLIGHT) {
            store.markPublished(lease, heads.stream().map(OutboxEvent::id).toList(), clock.instant());
            List<OutboxEvent> next = store.lease(UUID.randomUUID(), 300, clock.instant());
            assertThat(next)
                    .as("once the heads are published, each key's next run")
                    .hasSize(300);
            Map<String, List<Long>> byKey = next.stream()
                    .collect(Collectors.groupingBy(
                            OutboxEvent::keyOrEmpty, Collectors.mapping(OutboxEvent::sequence, Collectors.toList())));
            assertThat(byKey).hasSize(HOT_KEYS);
            byKey.values().forEach(sequences -> assertThat(sequences).hasSize(3).isSorted());
        }
    }

    @Test
    @DisplayName(
            "one key with a deep backlog: a lease takes its first 500 in order on index scans; the next takes none")
    void singleHotKey() throws Exception {
        PostgresOutboxStore store = storeWith(1, EVENTS);

        JsonNode firstPlan = explainLease(store, 500, "%,d events of one key, none in flight".formatted(EVENTS));
        assertNoScanOutsideIndexes(firstPlan);
        assertThat(candidateScan(firstPlan).path("Actual Rows").asLong()).isEqualTo(500);

        List<OutboxEvent> first = store.lease(UUID.randomUUID(), 500, clock.instant());
        assertThat(first).hasSize(500).extracting(OutboxEvent::sequence).isSorted();
        assertThat(first.get(0).sequence()).isEqualTo(1);

        JsonNode heldPlan =
                explainLease(store, 500, "%,d events of one key, its first 500 in flight".formatted(EVENTS));
        assertNoScanOutsideIndexes(heldPlan);
        assertThat(probeLoops(candidateScan(heldPlan), "_key_held_idx")).isZero();
        assertThat(probeLoops(candidateScan(heldPlan), "_key_guard_idx")).isZero();
        assertThat(store.lease(UUID.randomUUID(), 500, clock.instant())).isEmpty();
    }

    @Test
    @DisplayName("dead letters of keys with nothing pending cost the lease nothing: it never reads them")
    void unrelatedDeadLetters() throws Exception {
        PostgresOutboxStore store = storeWith(HOT_KEYS, 10);
        postgres.fixture()
                .execute("INSERT INTO " + store.config().tableName()
                        + " (id, type, source, event_key, destination, content_type, payload, status, attempts, max_attempts,"
                        + " next_attempt_at, created_at) SELECT gen_random_uuid(), 'account.changed', '/plan', 'closed-' || g,"
                        + " 'accounts', 'application/octet-stream', convert_to('x', 'UTF8'), 'failed', 10, 10,"
                        + " timestamptz '2023-12-31', timestamptz '2023-12-31' FROM generate_series(1, " + EVENTS
                        + ") g");
        postgres.fixture().execute("VACUUM ANALYZE " + store.config().tableName());

        JsonNode plan = explainLease(
                store, 500, "%,d dead letters of other keys, %,d pending".formatted(EVENTS, HOT_KEYS * 10));

        assertThat(nodes(plan))
                .extracting(node -> node.path("Index Name").asText())
                .as("indexes the lease reads")
                .noneMatch(name -> name.endsWith("_failed_idx"));
        JsonNode candidates = candidateScan(plan);
        assertThat(candidates.path("Actual Rows").asLong()).isEqualTo(500);
        assertThat(probeLoops(candidates, "_key_held_idx"))
                .as("one dead-letter probe per candidate")
                .isEqualTo(500);
    }

    private PostgresOutboxStore storeWith(int keys, int perKey) {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .layout(StoreLayout.IN_PLACE)
                        .tableName(postgres.schema() + ".hot_keys_" + TABLES.incrementAndGet())
                        .ordering(ORDERING)
                        .wakeUpMode(WakeUpMode.NONE)
                        .build());
        store.ensureSchema();
        // round robin: seq 1..keys are the heads, each key's events spread over the whole backlog
        postgres.fixture()
                .execute("INSERT INTO " + store.config().tableName()
                        + " (id, type, source, event_key, destination, content_type, payload, max_attempts,"
                        + " next_attempt_at, created_at)"
                        + " SELECT gen_random_uuid(), 'account.changed', '/plan', 'key-' || (g % " + keys
                        + "), 'accounts',"
                        + " 'application/octet-stream', convert_to(repeat('x', 200), 'UTF8'), 10,"
                        + " timestamptz '2023-12-31', timestamptz '2023-12-31' FROM generate_series(0, "
                        + (keys * perKey - 1)
                        + ") g");
        postgres.fixture().execute("VACUUM ANALYZE " + store.config().tableName());
        return store;
    }

    /**
     * EXPLAIN ANALYZE of the store's lease statement, in the store's transaction settings, rolled back;
     * prints its execution time.
     */
    private JsonNode explainLease(PostgresOutboxStore store, int limit, String situation) throws Exception {
        OrderedLeaseQuery query =
                new OrderedLeaseQuery(new OutboxTable(store.config().table()), ORDERING);
        Instant now = clock.instant();
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try (Statement settings = connection.createStatement()) {
                settings.execute(PreparedSql.render(DSL.select(OrderedLeaseQuery.PLAN_SETTINGS)));
            }
            try (PreparedStatement explain =
                    connection.prepareStatement("EXPLAIN (ANALYZE, FORMAT JSON) " + query.sql())) {
                OrderedLeaseQuery.bindLease(
                        explain, UUID.randomUUID(), now, limit, OrderedLeaseQuery.HEAD, OrderedLeaseQuery.END);
                try (ResultSet rs = explain.executeQuery()) {
                    rs.next();
                    JsonNode explained = JSON.readTree(rs.getString(1)).get(0);
                    JsonNode plan = explained.get("Plan");
                    System.out.printf(
                            "per-key lease of up to %d, %s: %.1f ms, of which %.1f ms gathering the held" + " keys%n",
                            limit, situation, explained.path("Execution Time").asDouble(), heldKeysMillis(plan));
                    return plan;
                }
            } finally {
                connection.rollback();
            }
        }
    }

    /** Time of the uncorrelated sub-select that maps held keys to their first held sequence. */
    private static double heldKeysMillis(JsonNode plan) {
        List<JsonNode> initPlans = nodes(plan).stream()
                .filter(node ->
                        "InitPlan".equals(node.path("Parent Relationship").asText()))
                .toList();
        assertThat(initPlans).as("the held-keys sub-select, run once").hasSize(1);
        return initPlans.get(0).path("Actual Total Time").asDouble();
    }

    private static void assertNoScanOutsideIndexes(JsonNode plan) {
        assertThat(nodes(plan))
                .extracting(node -> node.path("Node Type").asText())
                .as("plan nodes")
                .noneMatch(type -> type.equals("Seq Scan") || type.startsWith("Bitmap"));
    }

    /** The scan that walks the lease candidates: the one on the pending index. */
    private static JsonNode candidateScan(JsonNode plan) {
        List<JsonNode> scans = nodes(plan).stream()
                .filter(node -> node.path("Index Name").asText().endsWith("_pending_idx"))
                .filter(node -> node.path("Filter").asText().contains("event_key IS NULL"))
                .toList();
        assertThat(scans).as("the candidate scan").hasSize(1);
        return scans.get(0);
    }

    /** Executions of the correlated probe below the candidate scan that reads the index named {@code ...suffix}. */
    private static long probeLoops(JsonNode candidates, String suffix) {
        List<JsonNode> subPlans = nodes(candidates).stream()
                .filter(node ->
                        "SubPlan".equals(node.path("Parent Relationship").asText()))
                .toList();
        List<JsonNode> probes = subPlans.stream()
                .filter(node -> node.path("Index Name").asText().endsWith(suffix))
                .toList();
        assertThat(probes).as("the probe on %s among %s", suffix, subPlans).hasSize(1);
        JsonNode probe = probes.get(0);
        assertThat(probe.path("Node Type").asText())
                .as("the probe on " + suffix)
                .isEqualTo("Index Only Scan");
        return probe.path("Actual Loops").asLong();
    }

    /** {@code root} and every plan node below it. */
    private static List<JsonNode> nodes(JsonNode root) {
        List<JsonNode> nodes = new ArrayList<>();
        nodes.add(root);
        root.path("Plans").forEach(child -> nodes.addAll(nodes(child)));
        return nodes;
    }
}
