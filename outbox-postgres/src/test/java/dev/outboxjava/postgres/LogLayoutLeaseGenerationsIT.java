package dev.outboxjava.postgres;

import static dev.outboxjava.postgres.TestEvents.ids;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.appendlog.LeaseGenerations;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The append-only layout's lease rows go by generation: the one not being written is truncated once
 * nothing in it is in flight, so the rows of published batches leave whatever the database's horizon.
 */
class LogLayoutLeaseGenerationsIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    /** The start of a period whose generation is 0. */
    private final Instant now = Instant.parse("2024-03-01T10:00:00Z");

    private PostgresOutboxStore store;
    private Identifiers.TableName table;

    @BeforeEach
    void createStore() {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName(postgres.schema() + ".lease_generations")
                .layout(StoreLayout.APPEND_LOG)
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
    }

    @Test
    @DisplayName("under a held snapshot, a generation's published lease rows go once nothing in it is in flight")
    void idleGenerationTruncatedOnceEmpty() throws Exception {
        try (Connection held = postgres.dataSource().getConnection()) {
            held.setAutoCommit(false);
            held.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            query(held, "SELECT 1");
            UUID published = UUID.randomUUID();
            List<OutboxEvent> first = append(2);
            store.lease(published, 10, now);
            store.markPublished(published, ids(first), now);
            UUID inFlight = UUID.randomUUID();
            List<OutboxEvent> second = append(1);
            store.lease(inFlight, 10, now.plusSeconds(1));
            long sizeBefore = size(0);
            assertThat(sizeBefore).isPositive();

            // the next period writes generation 1; generation 0 still holds a lease in flight
            append(1);
            assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(5))).hasSize(1);
            assertThat(size(0)).isEqualTo(sizeBefore);

            store.markPublished(inFlight, ids(second), now.plusSeconds(6));
            append(1);
            assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(6))).hasSize(1);
            assertThat(size(0)).isZero();
            held.rollback();
        }
        assertThat(store.countByStatus()).containsEntry(EventStatus.SENT, 3L).containsEntry(EventStatus.IN_FLIGHT, 2L);
    }

    @Test
    @DisplayName("while another transaction holds a lock on the lease table, leasing goes on and the truncation waits")
    void truncationGivesUpUnderALock() throws Exception {
        UUID published = UUID.randomUUID();
        List<OutboxEvent> first = append(2);
        store.lease(published, 10, now);
        store.markPublished(published, ids(first), now);
        try (Connection reader = postgres.dataSource().getConnection()) {
            reader.setAutoCommit(false);
            query(
                    reader,
                    "SELECT count(*) FROM " + LogLayoutDdl.leaseTable(table).quoted());
            append(1);
            assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(5))).hasSize(1);
            assertThat(size(0)).isPositive();
            reader.rollback();
        }
        append(1);
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(6))).hasSize(1);
        assertThat(size(0)).isZero();
    }

    @Test
    @DisplayName("a lease table made unpartitioned is replaced, and its leases in flight are kept and can be marked")
    void unpartitionedLeaseTableReplaced() throws Exception {
        List<OutboxEvent> events = append(2);
        UUID lease = UUID.randomUUID();
        store.lease(lease, 10, now);
        String leases = LogLayoutDdl.leaseTable(table).quoted();
        String copy = new Identifiers.TableName(table.schema(), table.table() + "_copy").quoted();
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(
                    "CREATE TABLE " + copy + " AS SELECT lease_id, leased_at, ids, keys, seqs FROM " + leases);
            statement.execute("DROP TABLE " + leases + " CASCADE");
            statement.execute("ALTER TABLE " + copy + " RENAME TO "
                    + Identifiers.quote(LogLayoutDdl.leaseTable(table).table()));
            statement.execute("ALTER TABLE " + leases + " ADD CONSTRAINT "
                    + Identifiers.quote(table.table() + "_lease_pkey") + " PRIMARY KEY (lease_id)");
        }
        store.ensureSchema();

        assertThat(store.countByStatus()).containsEntry(EventStatus.IN_FLIGHT, 2L);
        assertThat(store.markPublished(lease, ids(events), now).marked())
                .containsExactlyInAnyOrderElementsOf(ids(events));
        assertThat(store.countByStatus()).containsEntry(EventStatus.SENT, 2L);
    }

    @Test
    @DisplayName("a generation never written since it was emptied is left alone: no TRUNCATE in the lease")
    void unwrittenGenerationNotTruncated() throws Exception {
        // without per-key ordering nothing is parked: the state table's generations are never written
        long parkingFile = fileNode(LogLayoutDdl.stateGeneration(table, 0));
        long leaseFile = fileNode(LogLayoutDdl.leaseGeneration(table, 0));
        UUID published = UUID.randomUUID();
        List<OutboxEvent> first = append(2);
        store.lease(published, 10, now);
        store.markPublished(published, ids(first), now);

        append(1);
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(5))).hasSize(1);

        assertThat(fileNode(LogLayoutDdl.stateGeneration(table, 0)))
                .as("the parking generation, never written, keeps its file")
                .isEqualTo(parkingFile);
        assertThat(fileNode(LogLayoutDdl.leaseGeneration(table, 0)))
                .as("the lease generation, written, is truncated")
                .isNotEqualTo(leaseFile);
    }

    private long fileNode(Identifiers.TableName partition) throws Exception {
        try (Connection connection = postgres.dataSource().getConnection()) {
            return query(connection, "SELECT pg_relation_filenode('" + partition.quoted() + "')");
        }
    }

    private long size(int generation) throws Exception {
        try (Connection connection = postgres.dataSource().getConnection()) {
            return query(
                    connection,
                    "SELECT pg_relation_size('"
                            + LogLayoutDdl.leaseGeneration(table, generation).quoted() + "')");
        }
    }

    private static long query(Connection connection, String sql) throws Exception {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private List<OutboxEvent> append(int count) {
        List<OutboxEvent> events = IntStream.range(0, count)
                .mapToObj(i -> OutboxEvent.builder()
                        .clock(Clock.fixed(now, ZoneOffset.UTC))
                        .type("order")
                        .destination("orders")
                        .payload("x".getBytes(StandardCharsets.UTF_8))
                        .build())
                .toList();
        store.transactional().inTransaction(connection -> events);
        return events;
    }
}
