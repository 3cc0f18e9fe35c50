package dev.outboxjava.postgres;

import static dev.outboxjava.postgres.TestEvents.ids;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.appendlog.LeaseGenerations;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Per key on the append-only layout, the state rows of events parked behind their key live in two
 * generations of the state table: the one not being written is truncated once nothing in it is in flight,
 * so those rows leave whatever the database's horizon; what waits there for longer is moved out first.
 */
class LogLayoutParkingGenerationsIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    /** The start of a period whose generation is 0. */
    private final Instant now = Instant.parse("2024-03-01T10:00:00Z");

    private PostgresOutboxStore store;
    private Identifiers.TableName table;

    @BeforeEach
    void createStore() {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName(postgres.schema() + ".parking_generations")
                .layout(StoreLayout.APPEND_LOG)
                .ordering(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY))
                .wakeUpMode(WakeUpMode.NONE)
                .build();
        store = PostgresOutboxStore.create(postgres.dataSource(), config);
        store.ensureSchema();
        table = store.config().table();
        assertThat(LeaseGenerations.of(now)).isZero();
    }

    @AfterEach
    void dropStore() {
        postgres.fixture().execute(LogLayoutDdl.drop(table));
        postgres.fixture()
                .execute("DROP FUNCTION IF EXISTS " + insertCounting().quoted() + "; DROP SEQUENCE IF EXISTS "
                        + insertCounter().quoted());
    }

    private Identifiers.TableName insertCounter() {
        return new Identifiers.TableName(table.schema(), table.table() + "_inserts_seen");
    }

    private Identifiers.TableName insertCounting() {
        return new Identifiers.TableName(table.schema(), table.table() + "_count_insert");
    }

    @Test
    @DisplayName("under a held snapshot, a parked event's state row goes with its generation once it is published")
    void parkedRowsGoWithTheirGeneration() throws Exception {
        try (Connection held = postgres.dataSource().getConnection()) {
            held.setAutoCommit(false);
            held.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            query(held, "SELECT 1");
            Parked parked = parkBehindLeaseOf("a");
            assertThat(rows(generation(0))).isEqualTo(1);

            store.markPublished(parked.holder(), List.of(parked.holding().id()), now);
            UUID lease = UUID.randomUUID();
            assertThat(store.lease(lease, 10, now.plusSeconds(1)))
                    .extracting(OutboxEvent::id)
                    .containsExactly(parked.id());
            store.markPublished(lease, List.of(parked.id()), now.plusSeconds(1));
            assertThat(rows(generation(0))).isZero();
            assertThat(size(generation(0)))
                    .as("the dead versions the held snapshot keeps")
                    .isPositive();

            append(event("d"));
            assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(5))).hasSize(1);
            assertThat(size(generation(0))).isZero();
            held.rollback();
        }
    }

    @Test
    @DisplayName("a parked event in flight keeps its generation until its outcome is marked")
    void inFlightKeepsTheGeneration() throws Exception {
        Parked parked = parkBehindLeaseOf("a");
        store.markPublished(parked.holder(), List.of(parked.holding().id()), now);
        UUID lease = UUID.randomUUID();
        assertThat(store.lease(lease, 10, now.plusSeconds(1))).hasSize(1);

        append(event("d"));
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(5))).hasSize(1);
        assertThat(rows(generation(0))).isEqualTo(1);

        store.markPublished(lease, List.of(parked.id()), now.plusSeconds(6));
        append(event("e"));
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(6))).hasSize(1);
        assertThat(size(generation(0))).isZero();
        assertThat(store.countByStatus()).containsEntry(EventStatus.SENT, 2L);
    }

    @Test
    @DisplayName(
            "what is left in an idle generation moves out: a parked event to the one being written, a dead letter to the kept rows")
    void leftoversMoveOut() throws Exception {
        List<OutboxEvent> first = append(event("a"));
        UUID holdsA = UUID.randomUUID();
        store.lease(holdsA, 10, now);
        List<OutboxEvent> second = append(event("x"));
        UUID holdsX = UUID.randomUUID();
        store.lease(holdsX, 10, now);
        List<OutboxEvent> next = append(event("a"), event("x"), event("c"));
        assertThat(store.lease(UUID.randomUUID(), 10, now))
                .extracting(OutboxEvent::id)
                .containsExactly(next.get(2).id());
        assertThat(rows(generation(0))).isEqualTo(2);

        store.markPublished(holdsX, ids(second), now);
        UUID failing = UUID.randomUUID();
        assertThat(store.lease(failing, 10, now.plusSeconds(1)))
                .extracting(OutboxEvent::id)
                .containsExactly(next.get(1).id());
        store.markDeadLettered(failing, List.of(new DeadLetterMark(next.get(1).id(), "rejected")), now.plusSeconds(1));
        Map<EventStatus, Long> before = store.countByStatus();

        append(event("d"));
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(5))).hasSize(1);
        assertThat(size(generation(0))).isZero();
        assertThat(idsIn(generation(1))).containsExactly(next.get(0).id());
        assertThat(idsIn(LogLayoutDdl.stateKept(table)))
                .containsExactly(next.get(1).id());
        Map<EventStatus, Long> after = store.countByStatus();
        assertThat(after.get(EventStatus.FAILED))
                .isEqualTo(before.get(EventStatus.FAILED))
                .isEqualTo(1L);
        assertThat(after.get(EventStatus.PENDING)).isEqualTo(before.get(EventStatus.PENDING));

        store.markPublished(holdsA, ids(first), now.plusSeconds(6));
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(6)))
                .extracting(OutboxEvent::id)
                .containsExactly(next.get(0).id());
    }

    @Test
    @DisplayName(
            "an idle generation holding more parked events than may be moved waits until they have been worked through")
    void tooManyToMoveWaits() throws Exception {
        List<OutboxEvent> first = append(event("a"));
        UUID holdsA = UUID.randomUUID();
        store.lease(holdsA, 10, now);
        List<OutboxEvent> burst = new ArrayList<>(
                IntStream.range(0, 1_001).mapToObj(i -> event("a")).toList());
        burst.add(event("c"));
        append(burst.toArray(OutboxEvent[]::new));
        assertThat(store.lease(UUID.randomUUID(), 2_000, now)).hasSize(1);
        assertThat(rows(generation(0))).isEqualTo(1_001);

        append(event("d"));
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(5))).hasSize(1);
        assertThat(rows(generation(0))).isEqualTo(1_001);
        assertThat(rows(generation(1))).isZero();

        store.markPublished(holdsA, ids(first), now.plusSeconds(6));
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(6)))
                .extracting(OutboxEvent::id)
                .containsExactlyElementsOf(ids(burst.subList(0, 10)));
    }

    @Test
    @DisplayName("a state table made unpartitioned is replaced, its rows kept: parked events, dead letters and all")
    void unpartitionedStateTableReplaced() throws Exception {
        List<OutboxEvent> first = append(event("x"));
        UUID failing = UUID.randomUUID();
        store.lease(failing, 10, now);
        store.markDeadLettered(failing, List.of(new DeadLetterMark(first.get(0).id(), "rejected")), now);
        Parked parked = parkBehindLeaseOf("a");
        Map<EventStatus, Long> before = store.countByStatus();

        String state = LogLayoutDdl.stateTable(table).quoted();
        String copy = new Identifiers.TableName(table.schema(), table.table() + "_copy").quoted();
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + copy + " AS SELECT id, seq, event_key, status, attempts, last_error,"
                    + " next_attempt_at, leased_at, lease_id, type, destination, created_at FROM " + state);
            statement.execute("DROP TABLE " + state + " CASCADE");
            statement.execute("ALTER TABLE " + copy + " RENAME TO "
                    + Identifiers.quote(LogLayoutDdl.stateTable(table).table()));
            statement.execute("ALTER TABLE " + state + " ADD CONSTRAINT "
                    + Identifiers.quote(table.table() + "_state_pkey") + " PRIMARY KEY (id)");
            statement.execute("CREATE INDEX " + Identifiers.quote(table.table() + "_state_key_idx") + " ON " + state
                    + " (event_key, seq)");
        }
        store.ensureSchema();

        assertThat(query("SELECT (relkind = 'p')::int FROM pg_class WHERE oid = '" + state + "'::regclass"))
                .isEqualTo(1);
        assertThat(store.countByStatus()).isEqualTo(before);
        assertThat(idsIn(LogLayoutDdl.stateKept(table)))
                .containsExactly(first.get(0).id(), parked.id());
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(2))).isEmpty();
        store.markPublished(parked.holder(), List.of(parked.holding().id()), now.plusSeconds(2));
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(2)))
                .extracting(OutboxEvent::id)
                .containsExactly(parked.id());
    }

    @Test
    @DisplayName(
            "per key, relays leasing at once while generations are truncated and their leftovers moved publish every event once, in key order")
    void concurrentRelaysKeepKeyOrderAcrossGenerations() throws Exception {
        int keys = 20;
        Map<String, List<UUID>> appended = new HashMap<>();
        for (int round = 0; round < 30; round++) {
            OutboxEvent[] events = new OutboxEvent[keys * 3];
            for (int i = 0; i < events.length; i++) {
                events[i] = event("k" + (i % keys));
                appended.computeIfAbsent("k" + (i % keys), k -> new ArrayList<>())
                        .add(events[i].id());
            }
            append(events);
        }
        KeyOrder order = new KeyOrder(appended);
        String parkedCount = countInsertsInto(generation(0), generation(1));
        AtomicLong clock = new AtomicLong();
        ExecutorService relays = Executors.newFixedThreadPool(3);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                int relay = r;
                running.add(relays.submit(() -> {
                    // a guard against a lost event, not a timing: the loop ends when all are published
                    for (int lease = 0; lease < 5_000 && !order.done(); lease++) {
                        Instant at = now.plusMillis(clock.addAndGet(700));
                        UUID leaseId = UUID.randomUUID();
                        List<OutboxEvent> batch = store.lease(leaseId, 25, at);
                        order.leased(batch);
                        if (batch.isEmpty()) {
                            continue;
                        }
                        List<UUID> batchIds = ids(batch);
                        if ((lease + relay) % 9 == 0) {
                            order.returned(batch);
                            order.marked(store.markRetry(
                                    leaseId,
                                    batchIds.stream()
                                            .map(id -> new RetryMark(id, "broker busy", at))
                                            .toList(),
                                    at));
                        } else {
                            // noted first: once marked, another relay may lease the next events of these keys
                            order.published(batch);
                            order.marked(store.markPublished(leaseId, batchIds, at));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> relay : running) {
                relay.get();
            }
        } finally {
            relays.shutdownNow();
        }
        assertThat(order.problems()).isEmpty();
        assertThat(order.allPublished()).isTrue();
        assertThat(query("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM " + parkedCount))
                .as("events parked in the generations")
                .isPositive();
    }

    /**
     * Counts the rows inserted into {@code partitions} from now on, in a sequence (the statistics views lag
     * behind by up to seconds; a sequence is neither late nor rolled back). Returns the sequence's name.
     */
    private String countInsertsInto(Identifiers.TableName... partitions) throws SQLException {
        String counter = insertCounter().quoted();
        String function = insertCounting().quoted();
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SEQUENCE " + counter);
            statement.execute("CREATE FUNCTION " + function + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                    + " PERFORM nextval('" + counter + "'); RETURN NULL; END $$");
            for (Identifiers.TableName partition : partitions) {
                statement.execute("CREATE TRIGGER count_insert AFTER INSERT ON " + partition.quoted()
                        + " FOR EACH ROW EXECUTE FUNCTION " + function + "()");
            }
        }
        return counter;
    }

    /** What the relays of a test may lease next, per key: the oldest unpublished events, one batch at a time. */
    private static final class KeyOrder {
        private final Map<String, List<UUID>> appended;
        private final Map<String, Integer> published = new HashMap<>();
        private final Map<String, Integer> inFlight = new HashMap<>();
        private final List<String> problems = new ArrayList<>();

        KeyOrder(Map<String, List<UUID>> appended) {
            this.appended = appended;
            appended.keySet().forEach(key -> published.put(key, 0));
        }

        synchronized void leased(List<OutboxEvent> batch) {
            Map<String, Integer> taken = new HashMap<>();
            for (OutboxEvent event : batch) {
                String key = event.key().orElseThrow();
                if (inFlight.containsKey(key)) {
                    problems.add(event.id() + ": leased while an earlier event of " + key + " is in flight");
                }
                int next = published.get(key) + taken.getOrDefault(key, 0);
                List<UUID> ofKey = appended.get(key);
                if (next >= ofKey.size() || !ofKey.get(next).equals(event.id())) {
                    problems.add(event.id() + ": leased out of order for " + key);
                }
                taken.merge(key, 1, Integer::sum);
            }
            inFlight.putAll(taken);
        }

        synchronized void published(List<OutboxEvent> batch) {
            for (OutboxEvent event : batch) {
                String key = event.key().orElseThrow();
                published.merge(key, 1, Integer::sum);
                inFlight.remove(key);
            }
        }

        synchronized void returned(List<OutboxEvent> batch) {
            batch.forEach(event -> inFlight.remove(event.key().orElseThrow()));
        }

        synchronized void marked(MarkResult result) {
            result.leaseLost().forEach(id -> problems.add(id + ": its lease was lost"));
        }

        synchronized boolean done() {
            return !problems.isEmpty() || allPublished();
        }

        synchronized boolean allPublished() {
            return appended.entrySet().stream()
                    .allMatch(e -> published.get(e.getKey()) == e.getValue().size());
        }

        synchronized List<String> problems() {
            return List.copyOf(problems);
        }
    }

    /**
     * Leases an event of {@code key} and leaves it in flight, then appends another of the key and one of
     * another key after it, and leases again: the second event of {@code key} is parked.
     */
    private Parked parkBehindLeaseOf(String key) throws Exception {
        List<OutboxEvent> holding = append(event(key));
        UUID holder = UUID.randomUUID();
        store.lease(holder, 10, now);
        List<OutboxEvent> next = append(event(key), event(key + "-other"));
        assertThat(store.lease(UUID.randomUUID(), 10, now))
                .extracting(OutboxEvent::id)
                .containsExactly(next.get(1).id());
        return new Parked(holder, holding.get(0), next.get(0));
    }

    /** An event parked behind its key, which the lease {@code holder} holds with {@code holding}. */
    private record Parked(UUID holder, OutboxEvent holding, OutboxEvent event) {

        UUID id() {
            return event.id();
        }
    }

    private Identifiers.TableName generation(int generation) {
        return LogLayoutDdl.stateGeneration(table, generation);
    }

    private long rows(Identifiers.TableName partition) throws Exception {
        return query("SELECT count(*) FROM " + partition.quoted());
    }

    private long size(Identifiers.TableName partition) throws Exception {
        return query("SELECT pg_relation_size('" + partition.quoted() + "')");
    }

    private List<UUID> idsIn(Identifiers.TableName partition) throws Exception {
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT id FROM " + partition.quoted() + " ORDER BY seq")) {
            List<UUID> ids = new ArrayList<>();
            while (rs.next()) {
                ids.add(rs.getObject(1, UUID.class));
            }
            return ids;
        }
    }

    private long query(String sql) throws Exception {
        try (Connection connection = postgres.dataSource().getConnection()) {
            return query(connection, sql);
        }
    }

    private static long query(Connection connection, String sql) throws Exception {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private List<OutboxEvent> append(OutboxEvent... events) {
        return TestEvents.append(store, events);
    }

    private OutboxEvent event(String key) {
        return TestEvents.event(Clock.fixed(now, ZoneOffset.UTC), key);
    }
}
