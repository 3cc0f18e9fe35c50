package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.postgres.health.DatabaseHealthReport;
import dev.outboxjava.postgres.health.PostgresHealthProbe;
import dev.outboxjava.postgres.health.TableStatistics;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The health probe's table statistics against the real PostgreSQL, in each layout: with autovacuum off
 * on every table (and partition) of the outbox, the rows the relay's work leaves dead show where they
 * are, the dead-tuple signal turns on, and the size is that of every table the outbox is kept in. The
 * store works through connections of its own that end after each use, so that their statistics reach
 * the shared statistics (a backend flushes them when it exits); the probe's figures are awaited.
 */
class TableStatisticsIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final AtomicInteger TABLES = new AtomicInteger();
    private static final int EVENTS = 2_000;
    /** Every event leaves at least one dead row where its status changes; pruning may take some back. */
    private static final long FLOOR = EVENTS / 2;

    private final Instant now = Instant.parse("2024-03-01T10:00:00Z");
    private final Clock clock = Clock.fixed(now, ZoneOffset.UTC);
    private final List<String> dropAfter = new ArrayList<>();

    @AfterEach
    void dropTables() {
        dropAfter.forEach(postgres.fixture()::execute);
    }

    @Test
    @DisplayName("in place: the status changes leave dead rows in the outbox table and turn the signal on")
    void inPlaceTableShowsItsDeadRows() throws Exception {
        PostgresOutboxStore store = store(StoreLayout.IN_PLACE);
        String table = store.config().tableName();
        dropAfter.add("DROP TABLE " + table);
        disableAutovacuum(table);
        PostgresHealthProbe probe = probe(store);
        assertThat(probe.outboxTables()).containsExactly(table);

        appendLeaseAndPublish(store);

        DatabaseHealthReport report = awaitDeadTuples(probe, table);
        TableStatistics outbox = report.outbox().orElseThrow();
        assertThat(report.outboxTables()).containsExactly(outbox);
        assertThat(outbox.table()).isEqualTo(table);
        assertThat(outbox.deadTuplesOver(FLOOR, 0.2))
                .as("the dead-tuple signal")
                .isTrue();
        assertThat(outbox.lastVacuumOfAnyKind()).as("no vacuum ran").isEmpty();
        assertThat(outbox.totalBytes()).isEqualTo(totalBytes(List.of(table)));
    }

    @Test
    @DisplayName("append-only: the dead rows show on the state table, in the outbox's total, and turn the signal on;"
            + " the size is every table's")
    void appendLogTablesShowTheirDeadRows() throws Exception {
        PostgresOutboxStore store = store(StoreLayout.APPEND_LOG);
        String table = store.config().tableName();
        dropAfter.add(LogLayoutDdl.drop(store.config().table()));
        List<String> tables = List.of(
                table, table + "_state", table + "_lease", table + "_position", table + "_sent", table + "_floor");
        for (String each : tables) {
            disableAutovacuum(each);
        }
        PostgresHealthProbe probe = probe(store);
        assertThat(probe.outboxTables()).containsExactlyElementsOf(tables);

        DatabaseHealthReport fresh = probe.read(now);
        assertThat(fresh.outboxTables()).extracting(TableStatistics::table).containsExactlyElementsOf(tables);
        assertThat(fresh.outbox().orElseThrow().deadTuplesOver(FLOOR, 0.2)).isFalse();

        appendLeaseAndPublish(store);

        String state = table + "_state";
        DatabaseHealthReport report = awaitDeadTuples(probe, state);
        TableStatistics stateTable = report.outboxTable(state).orElseThrow();
        assertThat(stateTable.deadTuplesOver(FLOOR, 0.2))
                .as("the dead-tuple signal of the state table")
                .isTrue();
        assertThat(stateTable.lastVacuumOfAnyKind()).as("no vacuum ran").isEmpty();
        TableStatistics log = report.outboxTable(table).orElseThrow();
        assertThat(log.liveTuples())
                .as("the log's partitions hold the events, not its parent")
                .isGreaterThanOrEqualTo(FLOOR);
        assertThat(log.totalBytes()).isPositive();

        TableStatistics outbox = report.outbox().orElseThrow();
        assertThat(outbox.table()).isEqualTo(table);
        assertThat(outbox.deadTuples())
                .isEqualTo(report.outboxTables().stream()
                        .mapToLong(TableStatistics::deadTuples)
                        .sum());
        assertThat(outbox.deadTuplesOver(FLOOR, 0.2))
                .as("the outbox's dead-tuple signal")
                .isTrue();
        assertThat(outbox.lastVacuumOfAnyKind()).isEmpty();
        assertThat(outbox.totalBytes())
                .as("the size of every table of the layout, partitions and indexes included")
                .isEqualTo(totalBytes(tables))
                .isEqualTo(report.outboxTables().stream()
                        .mapToLong(TableStatistics::totalBytes)
                        .sum());
    }

    @Test
    @DisplayName("a table that does not exist reads as absent in either layout")
    void missingTableIsAbsent() {
        for (StoreLayout layout : StoreLayout.values()) {
            DatabaseHealthReport report = PostgresHealthProbe.create(
                            postgres.dataSource(), postgres.schema() + ".no_such_outbox", layout, Optional.empty())
                    .read(now);
            assertThat(report.outbox()).isEmpty();
            assertThat(report.outboxTables()).isEmpty();
        }
    }

    private PostgresOutboxStore store(StoreLayout layout) {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                ownConnections(),
                PostgresOutboxConfig.builder()
                        .tableName(postgres.schema() + ".stats_" + TABLES.incrementAndGet())
                        .layout(layout)
                        .wakeUpMode(WakeUpMode.NONE)
                        .build());
        store.ensureSchema();
        return store;
    }

    private PostgresHealthProbe probe(PostgresOutboxStore store) {
        return PostgresHealthProbe.create(
                postgres.dataSource(),
                store.config().tableName(),
                store.config().layout(),
                Optional.empty());
    }

    /** Connections of the store's own, each a backend that flushes its statistics when it closes. */
    private static PGSimpleDataSource ownConnections() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(postgres.fixture().jdbcUrl());
        dataSource.setUser(postgres.fixture().user());
        dataSource.setPassword(postgres.fixture().password());
        return dataSource;
    }

    /**
     * Appends the events, leases them, fails each once (retryable), leases them again once due and marks
     * them published: every status change the relay makes, with the rows each layout rewrites.
     */
    private void appendLeaseAndPublish(PostgresOutboxStore store) {
        List<OutboxEvent> events = TestEvents.events(clock, EVENTS);
        store.transactional().inTransaction(connection -> events);
        UUID first = UUID.randomUUID();
        List<OutboxEvent> leased = store.lease(first, EVENTS, now);
        assertThat(leased).hasSize(EVENTS);
        store.markRetry(
                first,
                leased.stream()
                        .map(e -> new RetryMark(e.id(), "broker down", now.plusSeconds(1)))
                        .toList(),
                now);
        UUID second = UUID.randomUUID();
        List<OutboxEvent> again = store.lease(second, EVENTS, now.plusSeconds(2));
        assertThat(again).hasSize(EVENTS);
        store.markPublished(second, TestEvents.ids(again), now.plusSeconds(3));
    }

    /** The probe's reading once the statistics show {@link #FLOOR} dead rows on {@code table}. */
    private DatabaseHealthReport awaitDeadTuples(PostgresHealthProbe probe, String table) {
        return await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () -> {
                            forceStatisticsFlush();
                            return probe.read(now);
                        },
                        report -> report.outboxTable(table)
                                .map(t -> t.deadTuples() > FLOOR)
                                .orElse(false));
    }

    /** Other connections' statistics reach the shared statistics on their own; this connection's at once. */
    private static void forceStatisticsFlush() throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_stat_force_next_flush()");
        }
    }

    /** Autovacuum off on the table and every partition of it (a partitioned table takes no such setting). */
    private static void disableAutovacuum(String table) throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection()) {
            for (String leaf : leaves(connection, table)) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("ALTER TABLE " + leaf
                            + " SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)");
                }
            }
        }
    }

    /** The table's partitions that hold rows (every level down), or the table itself when not partitioned. */
    private static List<String> leaves(Connection connection, String table) throws SQLException {
        List<String> leaves = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement("""
                SELECT c.oid::regclass::text
                  FROM pg_class c
                 WHERE c.oid IN (SELECT relid FROM pg_partition_tree(to_regclass(?)) WHERE isleaf)
                    OR (c.oid = to_regclass(?) AND c.relkind = 'r')""")) {
            statement.setString(1, table);
            statement.setString(2, table);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    leaves.add(rows.getString(1));
                }
            }
        }
        assertThat(leaves).as("partitions of " + table).isNotEmpty();
        return leaves;
    }

    /** Every byte of the tables, their partitions, indexes and TOAST, as the catalog counts them. */
    private static long totalBytes(List<String> tables) throws SQLException {
        long total = 0;
        try (Connection connection = postgres.dataSource().getConnection()) {
            for (String table : tables) {
                for (String leaf : leaves(connection, table)) {
                    try (PreparedStatement statement =
                            connection.prepareStatement("SELECT pg_total_relation_size(to_regclass(?))")) {
                        statement.setString(1, leaf);
                        try (ResultSet row = statement.executeQuery()) {
                            row.next();
                            total += row.getLong(1);
                        }
                    }
                }
            }
        }
        return total;
    }
}
