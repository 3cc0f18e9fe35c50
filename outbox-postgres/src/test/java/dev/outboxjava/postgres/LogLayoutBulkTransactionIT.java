package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.appendlog.LogLease;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A transaction that appends many events (a bulk import, a backfill) is read by the append-only layout's
 * lease in index order, a batch at a time, whether it committed before the position passed it or was in
 * progress then. Counted in rows the plan read from the log (EXPLAIN ANALYZE), not in time: a plan that
 * reads the rest of the transaction and sorts it for every lease drains it in quadratic work.
 */
class LogLayoutBulkTransactionIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final int BULK = 20_000;
    private static final int BATCH = 100;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Instant now = Instant.parse("2024-03-01T10:00:00Z");
    private final Clock clock = Clock.fixed(now, ZoneOffset.UTC);
    private PostgresOutboxStore store;
    private Identifiers.TableName table;

    @BeforeEach
    void createStore() {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName(postgres.schema() + ".bulk")
                .layout(StoreLayout.APPEND_LOG)
                .wakeUpMode(WakeUpMode.NONE)
                .build();
        store = PostgresOutboxStore.create(postgres.dataSource(), config);
        store.ensureSchema();
        table = Identifiers.tableName("tableName", config.tableName());
    }

    @AfterEach
    void dropStore() {
        postgres.fixture().execute(LogLayoutDdl.drop(table));
    }

    @Test
    @DisplayName("a committed transaction of 20,000 events: the next lease reads one batch of it from the log")
    void committedBulk() throws SQLException {
        TestEvents.append(store, TestEvents.events(clock, BULK).toArray(OutboxEvent[]::new));
        analyze();
        assertThat(store.lease(UUID.randomUUID(), BATCH, now)).hasSize(BATCH);

        assertThat(rowsReadFromTheLog()).isLessThanOrEqualTo(BATCH);
        assertThat(store.lease(UUID.randomUUID(), BATCH, now)).hasSize(BATCH);
    }

    @Test
    @DisplayName("a transaction of 20,000 events in progress when the position passed it: read one batch at a time")
    void bulkInProgress() throws SQLException {
        try (Connection bulk = postgres.dataSource().getConnection()) {
            bulk.setAutoCommit(false);
            store.writer().append(bulk, TestEvents.events(clock, BULK));
            TestEvents.append(store, TestEvents.event(clock, "after"));
            assertThat(store.lease(UUID.randomUUID(), BATCH, now))
                    .as("the event committed after the bulk began")
                    .hasSize(1);
            bulk.commit();
        }
        analyze();
        assertThat(store.lease(UUID.randomUUID(), BATCH, now)).hasSize(BATCH);

        assertThat(rowsReadFromTheLog()).isLessThanOrEqualTo(BATCH);
        assertThat(store.lease(UUID.randomUUID(), BATCH, now)).hasSize(BATCH);
    }

    @Test
    @DisplayName("a transaction still writing 20,000 events: the next lease, unordered or per key, reads none of them")
    void bulkStillWriting() throws SQLException {
        try (Connection bulk = postgres.dataSource().getConnection()) {
            bulk.setAutoCommit(false);
            store.writer().append(bulk, TestEvents.events(clock, BULK));
            TestEvents.append(store, TestEvents.event(clock, "after"));
            assertThat(store.lease(UUID.randomUUID(), BATCH, now)).hasSize(1);
            TestEvents.append(store, TestEvents.event(clock, "later"));
            analyze();

            // rows of an open transaction are skipped unseen, not counted: their pages are what reading them costs
            LogLease unordered = new LogLease(table);
            LogLease perKey = new LogLease(table, Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY));
            assertThat(logBuffers(unordered, unordered.freshLeaseSql(), false))
                    .as("buffers of the log the unordered lease read")
                    .isLessThanOrEqualTo(OPEN_WRITER_BUFFERS);
            assertThat(logBuffers(perKey, perKey.freshLeaseSql(), false))
                    .as("buffers of the log the per-key lease read")
                    .isLessThanOrEqualTo(OPEN_WRITER_BUFFERS);
            assertThat(logBuffers(perKey, perKey.inversionsSql(), true))
                    .as("buffers of the log the per-key lease's look at the snapshot read")
                    .isLessThanOrEqualTo(OPEN_WRITER_BUFFERS);
            bulk.rollback();
        }
    }

    /** A few index and heap pages for the two committed events; the open transaction's 20,000 fill hundreds. */
    private static final long OPEN_WRITER_BUFFERS = 20;

    /** The buffers the scans of the log's partitions touched in {@code sql} (a lease's read), rolled back. */
    private long logBuffers(LogLease queries, String sql, boolean inversions) throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement statement =
                    connection.prepareStatement("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)) {
                LogLease.Position position = queries.readPosition(connection);
                if (inversions) {
                    queries.bindInversions(statement, position);
                } else {
                    queries.bindFresh(statement, position, UUID.randomUUID(), now, BATCH);
                }
                try (ResultSet rs = statement.executeQuery()) {
                    rs.next();
                    return logScanBuffers(JSON.readTree(rs.getString(1)).get(0).get("Plan"));
                }
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            } finally {
                connection.rollback();
            }
        }
    }

    private long logScanBuffers(JsonNode node) {
        long sum = 0;
        if (node.path("Relation Name").asText().startsWith(table.table() + "_p")) {
            sum += node.path("Shared Hit Blocks").asLong()
                    + node.path("Shared Read Blocks").asLong();
        }
        for (JsonNode child : node.path("Plans")) {
            sum += logScanBuffers(child);
        }
        return sum;
    }

    /** As autovacuum would: the statistics then show the bulk transaction's id on most rows. */
    private void analyze() throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("ANALYZE " + table.quoted());
        }
    }

    /** The most rows any scan of the log's partitions returned in the next lease's log read, rolled back. */
    private long rowsReadFromTheLog() throws SQLException {
        LogLease queries = new LogLease(table);
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement statement =
                    connection.prepareStatement("EXPLAIN (ANALYZE, FORMAT JSON) " + queries.freshLeaseSql())) {
                queries.bindFresh(statement, queries.readPosition(connection), UUID.randomUUID(), now, BATCH);
                try (ResultSet rs = statement.executeQuery()) {
                    rs.next();
                    return mostRowsScanned(JSON.readTree(rs.getString(1)).get(0).get("Plan"));
                }
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            } finally {
                connection.rollback();
            }
        }
    }

    /** Rows a scan returned or left out by its filter, the most of any scan of the log's partitions. */
    private long mostRowsScanned(JsonNode node) {
        long most = 0;
        if (node.path("Relation Name").asText().startsWith(table.table() + "_p")) {
            most = (node.path("Actual Rows").asLong()
                            + node.path("Rows Removed by Filter").asLong())
                    * node.path("Actual Loops").asLong();
        }
        for (JsonNode child : node.path("Plans")) {
            most = Math.max(most, mostRowsScanned(child));
        }
        return most;
    }
}
