package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.postgres.internal.inplace.OrderedLeaseQuery;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

@DisplayName("PostgreSQL store with per-key ordering")
class PerKeyOrderingIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final AtomicInteger TABLES = new AtomicInteger();
    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    private PostgresOutboxStore store(Ordering ordering) {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .layout(StoreLayout.IN_PLACE)
                        .tableName(postgres.schema() + ".per_key_" + TABLES.incrementAndGet())
                        .ordering(ordering)
                        .build());
        store.ensureSchema();
        return store;
    }

    private OutboxEvent event(String key, int n) {
        OutboxEvent.Builder builder = OutboxEvent.builder()
                .clock(clock)
                .type("account.changed")
                .destination("accounts")
                .payload(("" + n).getBytes(StandardCharsets.UTF_8));
        if (key != null) {
            builder.key(key);
        }
        return builder.build();
    }

    /** More events of one key than one lease looks at when it finds every key held. */
    private static final int BEYOND_ONE_LEASE =
            OrderedLeaseQuery.windowRows(10) * OrderedLeaseQuery.MAX_WINDOWS_PER_LEASE + 1_000;

    /** Appends {@code count} due events of {@code key} in one statement (a store append would take minutes). */
    private void appendMany(PostgresOutboxStore store, String key, int count) {
        postgres.fixture()
                .execute("INSERT INTO " + store.config().tableName()
                        + " (id, type, source, event_key, destination, content_type, payload, max_attempts,"
                        + " next_attempt_at, created_at) SELECT gen_random_uuid(), 'account.changed', '/per-key', '"
                        + key + "', 'accounts', 'application/octet-stream', '\\x00', 10,"
                        + " timestamptz '2023-12-31', timestamptz '2023-12-31' FROM generate_series(1, " + count + ")");
    }

    private List<UUID> leaseIds(PostgresOutboxStore store, UUID leaseId, int limit) {
        return store.lease(leaseId, limit, clock.instant()).stream()
                .map(OutboxEvent::id)
                .toList();
    }

    /**
     * Leases until a lease takes something and returns what it took. Waits rather than assumes: other
     * sessions on a shared server can hold the xmin horizon for a moment, which holds keyed events back.
     */
    private List<UUID> leaseUntilSomething(PostgresOutboxStore store, UUID leaseId, int limit) {
        List<List<UUID>> taken = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            clock.advance(OrderedLeaseQuery.WALK_ON_INTERVAL); // each lease may look past windows of held keys
            List<UUID> ids = leaseIds(store, leaseId, limit);
            taken.add(ids);
            return !ids.isEmpty();
        });
        return taken.get(taken.size() - 1);
    }

    @Test
    @DisplayName(
            "a lease that finds every key held stops after a bounded walk, and the next lease goes on from where it stopped")
    void heldBacklogIsWalkedInWindows() {
        PostgresOutboxStore store = store(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY));
        OutboxEvent hotHead = event("hot", 0);
        store.transactional().inTransaction(connection -> List.of(hotHead));
        assertThat(leaseUntilSomething(store, UUID.randomUUID(), 1)).containsExactly(hotHead.id());
        appendMany(store, "hot", BEYOND_ONE_LEASE); // every one held behind the head, in flight
        OutboxEvent other = event("other", 1);
        store.transactional().inTransaction(connection -> List.of(other));

        assertThat(leaseIds(store, UUID.randomUUID(), 10))
                .as("the first lease looks at no more than its windows, all of the held key")
                .isEmpty();
        assertThat(leaseIds(store, UUID.randomUUID(), 10))
                .as("within the interval, a lease looks at the head window only")
                .isEmpty();
        assertThat(leaseUntilSomething(store, UUID.randomUUID(), 10))
                .as("past its head window, the next lease goes on where the first stopped")
                .containsExactly(other.id());
    }

    @Test
    @DisplayName("a lease that starts past the head never takes an event ahead of an earlier pending one of its key")
    void windowPastTheHeadKeepsKeyOrder() {
        PostgresOutboxStore store = store(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY));
        OutboxEvent first = event("account-1", 1);
        OutboxEvent hotHead = event("hot", 0);
        store.transactional().inTransaction(connection -> List.of(first, hotHead));
        UUID firstLease = UUID.randomUUID();
        assertThat(leaseUntilSomething(store, firstLease, 2)).containsExactly(first.id(), hotHead.id());
        appendMany(store, "hot", OrderedLeaseQuery.windowRows(10) + 500); // the second is not in the head window
        OutboxEvent second = event("account-1", 2);
        store.transactional().inTransaction(connection -> List.of(second));
        appendMany(store, "hot", BEYOND_ONE_LEASE);
        OutboxEvent third = event("account-1", 3);
        store.transactional().inTransaction(connection -> List.of(third));
        assertThat(leaseIds(store, UUID.randomUUID(), 10))
                .as("both keys held: the lease stops past the head")
                .isEmpty();

        store.markPublished(firstLease, List.of(first.id()), clock.instant()); // account-1 is free again
        clock.advance(OrderedLeaseQuery.WALK_ON_INTERVAL);

        assertThat(leaseIds(store, UUID.randomUUID(), 10))
                .as("the lease that goes on past the second event does not take the third")
                .isEmpty();
        assertThat(leaseUntilSomething(store, UUID.randomUUID(), 10))
                .as("the walk starts over and takes the second")
                .containsExactly(second.id());
    }

    @Test
    @DisplayName("an event is not leased ahead of an earlier event of its key whose transaction is still open")
    void commitOrderGuard() throws Exception {
        PostgresOutboxStore store = store(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY));
        OutboxWriter writer = store.writer();
        OutboxEvent fromA = event("account-1", 1);
        OutboxEvent fromB = event("account-1", 2);
        OutboxEvent unkeyed = event(null, 3);
        try (Connection a = postgres.fixture().openConnection();
                Connection b = postgres.fixture().openConnection()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            writer.append(a, List.of(fromA));
            writer.append(b, List.of(fromB, unkeyed));
            b.commit();
            long seqA = sequenceOf(a, store, fromA);
            assertThat(store.find(fromB.id()).orElseThrow().sequence())
                    .as("B took the later sequence")
                    .isGreaterThan(seqA);

            List<OutboxEvent> whileAOpen = store.lease(UUID.randomUUID(), 10, clock.instant());
            assertThat(whileAOpen)
                    .extracting(OutboxEvent::id)
                    .as("B's event waits for A; unkeyed events never wait")
                    .containsExactly(unkeyed.id());

            a.commit();
        }
        awaitLeasedInOrder(store, fromA, fromB);
    }

    @Test
    @DisplayName(
            "a later event waits for an earlier event of its key whose transaction committed but is not yet older than every open one")
    void commitOrderGuardProbesEarlierEvents() throws Exception {
        PostgresOutboxStore store = store(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY));
        OutboxWriter writer = store.writer();
        OutboxEvent fromA = event("account-1", 1);
        OutboxEvent fromB = event("account-1", 2);
        try (Connection a = postgres.fixture().openConnection();
                Connection b = postgres.fixture().openConnection();
                Connection x = postgres.fixture().openConnection()) {
            for (Connection connection : List.of(a, b, x)) {
                connection.setAutoCommit(false);
            }
            beginWriting(b); // B's transaction id is older than X's ...
            beginWriting(x); // ... and X stays open through the lease
            writer.append(a, List.of(fromA)); // A, younger than X, takes the earlier sequence
            writer.append(b, List.of(fromB));
            b.commit();
            a.commit();
            assumeTrue(passesItsOwnGuard(store, fromB), "no other session holds the xmin horizon older than B");

            assertThat(store.lease(UUID.randomUUID(), 10, clock.instant()))
                    .as("B's event waits for A's")
                    .isEmpty();

            x.commit();
        }
        awaitLeasedInOrder(store, fromA, fromB);
    }

    /**
     * Leases until {@code events} were leased, in this order and nothing else. Waits rather than assumes:
     * other sessions on a shared server can hold the xmin horizon for a moment.
     */
    private void awaitLeasedInOrder(PostgresOutboxStore store, OutboxEvent... events) {
        List<UUID> leased = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            store.lease(UUID.randomUUID(), 10, clock.instant()).forEach(e -> leased.add(e.id()));
            assertThat(leased)
                    .containsExactly(Arrays.stream(events).map(OutboxEvent::id).toArray(UUID[]::new));
        });
    }

    private static void beginWriting(Connection connection) throws Exception {
        try (var statement = connection.createStatement()) {
            statement.execute("SELECT pg_current_xact_id()"); // assigns the transaction its id now
        }
    }

    private boolean passesItsOwnGuard(PostgresOutboxStore store, OutboxEvent event) throws Exception {
        try (Connection connection = postgres.fixture().openConnection();
                var statement =
                        connection.prepareStatement("SELECT xact_id < pg_snapshot_xmin(pg_current_snapshot()) FROM "
                                + store.config().tableName() + " WHERE id = ?")) {
            statement.setObject(1, event.id());
            try (var rows = statement.executeQuery()) {
                return rows.next() && rows.getBoolean(1);
            }
        }
    }

    private static long sequenceOf(Connection a, PostgresOutboxStore store, OutboxEvent event) throws Exception {
        try (var statement =
                a.prepareStatement("SELECT seq FROM " + store.config().tableName() + " WHERE id = ?")) {
            statement.setObject(1, event.id());
            try (var rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    @Test
    @DisplayName(
            "four concurrent relays never hold events of one key at once, and each key is marked in sequence order")
    void concurrentLeasersKeepKeysExclusive() throws Exception {
        PostgresOutboxStore store = store(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY));
        int keys = 40;
        int perKey = 50;
        List<OutboxEvent> all = new ArrayList<>();
        for (int n = 0; n < perKey; n++) {
            List<OutboxEvent> round = new ArrayList<>();
            for (int k = 0; k < keys; k++) {
                round.add(event("key-" + k, n));
            }
            store.transactional().inTransaction(connection -> round);
            all.addAll(round);
        }
        Map<String, UUID> holders = new ConcurrentHashMap<>();
        List<String> violations = new CopyOnWriteArrayList<>();
        Map<String, List<Long>> markedOrder = new ConcurrentHashMap<>();
        ExecutorService relays = Executors.newFixedThreadPool(4);
        List<Future<?>> running = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            running.add(relays.submit(() -> {
                // Quit after 30 s without a lease: the commit-order guard may hold events back for as long
                // as some other session on a shared server keeps a transaction open.
                long idleSince = System.nanoTime();
                while (System.nanoTime() - idleSince < Duration.ofSeconds(30).toNanos()
                        && markedCount(markedOrder) < keys * perKey) {
                    UUID lease = UUID.randomUUID();
                    List<OutboxEvent> batch = store.lease(lease, 37, clock.instant());
                    if (batch.isEmpty()) {
                        Thread.sleep(5);
                        continue;
                    }
                    idleSince = System.nanoTime();
                    var keysOfBatch =
                            batch.stream().map(OutboxEvent::keyOrEmpty).collect(Collectors.toSet());
                    for (String key : keysOfBatch) {
                        UUID other = holders.putIfAbsent(key, lease);
                        if (other != null) {
                            violations.add(key + " leased by " + lease + " while held by " + other);
                        }
                    }
                    for (OutboxEvent event : batch) {
                        markedOrder
                                .computeIfAbsent(event.keyOrEmpty(), k -> new CopyOnWriteArrayList<>())
                                .add(event.sequence());
                    }
                    keysOfBatch.forEach(key -> holders.remove(key, lease));
                    store.markPublished(
                            lease, batch.stream().map(OutboxEvent::id).toList(), clock.instant());
                }
                return null;
            }));
        }
        for (Future<?> relay : running) {
            relay.get();
        }
        relays.shutdown();

        assertThat(violations).isEmpty();
        assertThat(markedOrder).hasSize(keys);
        markedOrder.forEach((key, sequences) ->
                assertThat(sequences).as("order of key %s", key).hasSize(perKey).isSorted());
    }

    private static int markedCount(Map<String, List<Long>> markedOrder) {
        return markedOrder.values().stream().mapToInt(List::size).sum();
    }

    @Test
    @DisplayName(
            "the per-key lease costs about what the unordered lease costs (100,000 pending over 10,000 keys; printed)")
    void leaseCost() {
        PostgresOutboxStore unordered = store(Ordering.none());
        PostgresOutboxStore ordered = store(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY));
        for (PostgresOutboxStore store : List.of(unordered, ordered)) {
            postgres.fixture()
                    .execute("INSERT INTO " + store.config().tableName()
                            + " (id, type, source, event_key, destination, content_type, payload, max_attempts,"
                            + " next_attempt_at, created_at)"
                            + " SELECT gen_random_uuid(), 'account.changed', '/bench', 'key-' || (g % 10000), 'accounts',"
                            + " 'application/octet-stream', convert_to(repeat('x', 1000), 'UTF8'), 10,"
                            + " timestamptz '2024-01-01', timestamptz '2024-01-01' FROM generate_series(1, 100000) g");
            postgres.fixture().execute("VACUUM ANALYZE " + store.config().tableName());
        }
        long[] unorderedNanos = timeLeases(unordered);
        long[] orderedNanos = timeLeases(ordered);
        System.out.printf(
                "lease of 500 from 100,000 pending over 10,000 keys: unordered median %.1f ms,"
                        + " per-key median %.1f ms (%d leases each)%n",
                unorderedNanos[unorderedNanos.length / 2] / 1e6,
                orderedNanos[orderedNanos.length / 2] / 1e6,
                orderedNanos.length);
    }

    private long[] timeLeases(PostgresOutboxStore store) {
        long[] nanos = new long[9];
        for (int i = 0; i < nanos.length; i++) {
            long started = System.nanoTime();
            List<OutboxEvent> batch =
                    store.lease(UUID.randomUUID(), 500, clock.instant().plusSeconds(86400 * 365));
            nanos[i] = System.nanoTime() - started;
            assertThat(batch).hasSize(500);
            store.markPublished(
                    batch.get(0).leaseId().orElseThrow(),
                    batch.stream().map(OutboxEvent::id).toList(),
                    clock.instant());
        }
        Arrays.sort(nanos);
        return nanos;
    }
}
