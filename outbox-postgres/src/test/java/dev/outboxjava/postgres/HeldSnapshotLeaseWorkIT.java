package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.OutboxTable;
import dev.outboxjava.postgres.internal.appendlog.LogLease;
import dev.outboxjava.postgres.internal.appendlog.LogPartitions;
import dev.outboxjava.postgres.internal.inplace.LeaseQuery;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With another session holding a REPEATABLE READ snapshot open (vacuum can remove nothing), the lease's
 * work is measured in buffers (EXPLAIN ANALYZE BUFFERS, counts, not times) after {@value #WARM_UP} events relayed
 * and after {@value #EVENTS} more: in the in-place layout it grows with every event relayed, because each status
 * change leaves a dead entry where the lease scans; in the append-only layout it stays flat.
 */
class HeldSnapshotLeaseWorkIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final int EVENTS = 20_000;
    private static final int WARM_UP = 5_000;
    private static final int BATCH = 100;
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Connection holder;
    private Instant now = Instant.parse("2024-03-01T10:00:00Z");

    @BeforeAll
    static void holdSnapshot() throws SQLException {
        holder = postgres.dataSource().getConnection();
        holder.setAutoCommit(false);
        holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try (Statement statement = holder.createStatement()) {
            // the snapshot is taken by the first query and held until the transaction ends: idle in transaction
            statement.executeQuery("SELECT 1").close();
        }
    }

    @AfterAll
    static void releaseSnapshot() throws SQLException {
        holder.rollback();
        holder.close();
    }

    @Test
    @DisplayName("in-place layout: the lease reads more and more buffers as events are relayed under the held snapshot")
    void inPlaceGrows() throws Exception {
        PostgresOutboxStore store = store("held_in_place", StoreLayout.IN_PLACE);
        try {
            String sql = new LeaseQuery(new OutboxTable(table(store))).sql();
            Explained before = relayAndMeasure(store, WARM_UP, () -> inPlaceLeaseBuffers(store, sql));
            Explained after = relayAndMeasure(store, EVENTS, () -> inPlaceLeaseBuffers(store, sql));
            // every event relayed left dead entries where the lease looks for pending events
            assertThat(after.read() - before.read())
                    .as(
                            "more buffers the in-place lease read after %d more events (%s)",
                            EVENTS, describe(before, after))
                    .isGreaterThan(EVENTS / 100);
        } finally {
            drop(store);
        }
    }

    @Test
    @DisplayName("append-only layout: the lease reads as many buffers after 20,000 more events relayed under the "
            + "held snapshot as before them")
    void appendLogStaysFlat() throws Exception {
        PostgresOutboxStore store = store("held_append_log", StoreLayout.APPEND_LOG);
        try {
            LogLease queries = new LogLease(table(store));
            Explained before = relayAndMeasure(store, WARM_UP, () -> logLeaseBuffers(store, queries));
            Explained after = relayAndMeasure(store, EVENTS, () -> logLeaseBuffers(store, queries));
            // flat: an index page boundary may cost a few buffers, never one per lease of 100 events relayed
            assertThat(after.read())
                    .as("buffers the append-only lease read after %d more events (%s)", EVENTS, describe(before, after))
                    .isLessThanOrEqualTo(before.read() + 5);
            assertThat(after.written())
                    .as(
                            "buffers the append-only lease wrote after %d more events (%s)",
                            EVENTS, describe(before, after))
                    .isLessThanOrEqualTo(before.written() + 5);
        } finally {
            drop(store);
        }
    }

    @Test
    @DisplayName("append-only layout: with the log in twelve partitions the lease reads about as many buffers as"
            + " with one: the partitions below the floor are left out")
    void appendLogPartitions() throws Exception {
        PostgresOutboxStore one = store("held_append_log_one", StoreLayout.APPEND_LOG);
        PostgresOutboxStore twelve = store("held_append_log_twelve", StoreLayout.APPEND_LOG);
        try {
            Identifiers.TableName table = table(twelve);
            try (Connection connection = twelve.dataSource().getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE " + LogLayoutDdl.range(table, 1).quoted() + ", "
                        + LogLayoutDdl.sentRange(table, 1).quoted());
                LogPartitions partitions = new LogPartitions(table, CompletionMode.KEEP_SENT);
                for (int range = 0; range < 11; range++) {
                    partitions.addRange(connection, WARM_UP / 10);
                }
                partitions.addRange(connection, 1_000_000);
                assertThat(partitions.ranges(connection)).hasSize(12);
            }
            // analyzed first, as autovacuum would have done to partitions of millions of events: without statistics
            // the planner reads partitions of 500 rows whole rather than through their index
            Explained single = relayAndMeasure(one, WARM_UP, () -> {
                analyze(one);
                return logLeaseBuffers(one, new LogLease(table(one)));
            });
            Explained split = relayAndMeasure(twelve, WARM_UP, () -> {
                analyze(twelve);
                // two clean-up runs (keeping every sent event) raise the floor of the log read past the ranges
                // whose events are all taken: the lease leaves them out
                twelve.cleanUp(now.minus(Duration.ofDays(7)), 1000);
                twelve.cleanUp(now.minus(Duration.ofDays(7)), 1000);
                return logLeaseBuffers(twelve, new LogLease(table));
            });
            // the ranges below the floor are not read; the two above it (the one being filled and the one ahead)
            // cost a probe of their position index per branch of the log read
            assertThat(split.read())
                    .as(
                            "buffers the lease read with twelve ranges (one range read %d and wrote %d; twelve read %d"
                                    + " and wrote %d)",
                            single.read(), single.written(), split.read(), split.written())
                    .isLessThanOrEqualTo(single.read() + 2 * 2 + 5);
            assertThat(split.written()).isLessThanOrEqualTo(single.written() + 5);
        } finally {
            drop(one);
            drop(twelve);
        }
    }

    private static void analyze(PostgresOutboxStore store) throws SQLException {
        try (Connection connection = store.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("ANALYZE " + table(store).quoted());
        }
    }

    private static String describe(Explained before, Explained after) {
        return String.format(
                "lease of %d: after %,d events read %d and wrote %d buffers; after %,d more, read %d and wrote %d",
                BATCH, WARM_UP, before.read(), before.written(), EVENTS, after.read(), after.written());
    }

    /**
     * Relays {@code count} events (append, lease, mark published, in batches), then appends one more
     * batch and measures the lease over it.
     */
    private Explained relayAndMeasure(PostgresOutboxStore store, int count, Measurement measurement) throws Exception {
        for (int appended = 0; appended < count; appended += 1000) {
            append(store, Math.min(1000, count - appended));
            relayAll(store);
        }
        append(store, BATCH);
        Explained buffers = measurement.buffers();
        relayAll(store);
        return buffers;
    }

    /**
     * Leases and marks batches until nothing is pending. A lease of the append-only layout comes back empty
     * while a transaction elsewhere on the server is older than the events' writers; it is tried again.
     */
    private void relayAll(PostgresOutboxStore store) {
        await().atMost(Duration.ofMinutes(2))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(5))
                .until(() -> {
                    UUID leaseId = UUID.randomUUID();
                    List<OutboxEvent> batch = store.lease(leaseId, BATCH, now);
                    if (!batch.isEmpty()) {
                        store.markPublished(
                                leaseId, batch.stream().map(OutboxEvent::id).toList(), now);
                        now = now.plusMillis(1);
                    }
                    return store.countByStatus().get(EventStatus.PENDING) == 0;
                });
        // an idle relay's lease: it finds nothing, and the append-only layout closes the snapshot it read through,
        // so that the measured lease starts from a fresh one as a relay's next lease would
        assertThat(store.lease(UUID.randomUUID(), BATCH, now)).isEmpty();
    }

    private void append(PostgresOutboxStore store, int count) {
        List<OutboxEvent> events = IntStream.range(0, count)
                .mapToObj(i -> OutboxEvent.builder()
                        .clock(java.time.Clock.fixed(now, ZoneOffset.UTC))
                        .type("order.placed")
                        .destination("orders")
                        .key("order-" + i)
                        .payload(new byte[64])
                        .build())
                .toList();
        store.transactional().inTransaction(connection -> events);
    }

    /** The in-place lease statement under EXPLAIN ANALYZE, in a transaction rolled back: its buffers. */
    private Explained inPlaceLeaseBuffers(PostgresOutboxStore store, String sql) throws SQLException {
        try (Connection connection = store.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try {
                try (PreparedStatement statement = connection.prepareStatement(explain(sql))) {
                    statement.setObject(1, UUID.randomUUID());
                    statement.setObject(2, now.atOffset(ZoneOffset.UTC));
                    statement.setObject(3, now.atOffset(ZoneOffset.UTC));
                    statement.setInt(4, BATCH);
                    return leasedAll(buffers(statement));
                }
            } finally {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        }
    }

    /** The append-only lease's statements (state, position, log) under EXPLAIN ANALYZE, rolled back. */
    private Explained logLeaseBuffers(PostgresOutboxStore store, LogLease queries) throws SQLException {
        try (Connection connection = store.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try {
                LogLease.Position position = queries.readPosition(connection);
                Explained total;
                try (PreparedStatement statement = connection.prepareStatement(explain(queries.retryLeaseSql()))) {
                    queries.bindRetry(statement, position, UUID.randomUUID(), now, BATCH);
                    total = buffers(statement);
                }
                try (PreparedStatement statement = connection.prepareStatement(explain(queries.positionSql()))) {
                    Explained read = buffers(statement); // its one row is the position, not an event
                    total = total.plus(new Explained(0, read.read(), read.written()));
                }
                if (store.config().ordering().isPerKey()) {
                    try (PreparedStatement statement = connection.prepareStatement(explain(queries.inversionsSql()))) {
                        queries.bindInversions(statement, position);
                        Explained read = buffers(statement); // its one row is the events found, not an event
                        total = total.plus(new Explained(0, read.read(), read.written()));
                    }
                }
                try (PreparedStatement statement = connection.prepareStatement(explain(queries.freshLeaseSql()))) {
                    queries.bindFresh(statement, position, UUID.randomUUID(), now, BATCH);
                    total = total.plus(buffers(statement));
                }
                return leasedAll(total);
            } finally {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        }
    }

    private static String explain(String sql) {
        return "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql;
    }

    /** The top plan node's rows and shared buffers (hit and read), which include every node below it. */
    private static Explained buffers(PreparedStatement statement) throws SQLException {
        try (ResultSet rs = statement.executeQuery()) {
            rs.next();
            JsonNode plan = JSON.readTree(rs.getString(1)).get(0).get("Plan");
            if (Boolean.getBoolean("outbox.test.printPlans")) {
                print(plan, "");
            }
            long total = inclusive(plan);
            return new Explained(plan.get("Actual Rows").asLong(), total - writes(plan), writes(plan));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long inclusive(JsonNode node) {
        return node.path("Shared Hit Blocks").asLong()
                + node.path("Shared Read Blocks").asLong();
    }

    /** The buffers the statement's writes used themselves (each ModifyTable node less what it read). */
    private static long writes(JsonNode node) {
        long writes = 0;
        if ("ModifyTable".equals(node.path("Node Type").asText())) {
            long children = 0;
            for (JsonNode child : node.path("Plans")) {
                children += inclusive(child);
            }
            writes += inclusive(node) - children;
        }
        for (JsonNode child : node.path("Plans")) {
            writes += writes(child);
        }
        return writes;
    }

    private static void print(JsonNode node, String indent) {
        long own = node.path("Shared Hit Blocks").asLong()
                + node.path("Shared Read Blocks").asLong();
        System.out.println(indent + node.path("Node Type").asText() + " "
                + node.path("Relation Name").asText("")
                + " " + node.path("Index Name").asText("") + " rows="
                + node.path("Actual Rows").asLong()
                + " loops=" + node.path("Actual Loops").asLong() + " buffers=" + own);
        for (JsonNode child : node.path("Plans")) {
            print(child, indent + "  ");
        }
    }

    /** The buffers of a measured lease, which must have leased the whole batch (else it measured nothing). */
    private static Explained leasedAll(Explained explained) {
        assertThat(explained.rows()).as("events the measured lease took").isEqualTo(BATCH);
        return explained;
    }

    private PostgresOutboxStore store(String name, StoreLayout layout) {
        return store(name, layout, Ordering.none());
    }

    private PostgresOutboxStore store(String name, StoreLayout layout, Ordering ordering) {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName(postgres.schema() + "." + name)
                .layout(layout)
                .ordering(ordering)
                .wakeUpMode(WakeUpMode.NONE)
                .build();
        PostgresOutboxStore store = PostgresOutboxStore.create(postgres.dataSource(), config);
        store.ensureSchema();
        return store;
    }

    private static Identifiers.TableName table(PostgresOutboxStore store) {
        return Identifiers.tableName("tableName", store.config().tableName());
    }

    private static void drop(PostgresOutboxStore store) {
        Identifiers.TableName table = table(store);
        postgres.fixture()
                .execute(
                        store.config().layout() == StoreLayout.APPEND_LOG
                                ? LogLayoutDdl.drop(table)
                                : "DROP TABLE " + table.quoted());
    }

    /** A lease's plan: rows leased, buffers read (finding the events), buffers written (moving them). */
    private record Explained(long rows, long read, long written) {

        Explained plus(Explained other) {
            return new Explained(rows + other.rows, read + other.read, written + other.written);
        }
    }

    @FunctionalInterface
    private interface Measurement {
        Explained buffers() throws Exception;
    }
}
