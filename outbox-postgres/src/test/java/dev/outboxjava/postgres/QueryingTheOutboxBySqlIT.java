package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What docs/schema-and-migrations.md tells a user to query by SQL shows the store's own counts, on both
 * layouts, and nothing on the outbox's own name reads a state it does not have.
 */
class QueryingTheOutboxBySqlIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    @ParameterizedTest
    @EnumSource(StoreLayout.class)
    @DisplayName("the documented query counts every state as the store does")
    void documentedQueryMatchesTheStore(StoreLayout layout) throws SQLException {
        ContractTables tables = new ContractTables(postgres, "by_sql", layout);
        PostgresOutboxStore store = tables.create(Ordering.none());
        try {
            Instant now = Instant.now();
            List<OutboxEvent> events = IntStream.range(0, 10)
                    .mapToObj(i -> OutboxEvent.builder()
                            .type("order.placed")
                            .destination("orders")
                            .payload(("" + i).getBytes(StandardCharsets.UTF_8))
                            .build())
                    .toList();
            ContractTables.append(store, events);
            UUID lease = UUID.randomUUID();
            List<OutboxEvent> leased = store.lease(lease, 6, now.plusSeconds(1));
            assertThat(leased).hasSize(6);
            store.markPublished(
                    lease,
                    List.of(
                            leased.get(0).id(),
                            leased.get(1).id(),
                            leased.get(2).id()),
                    now);
            store.markRetry(
                    lease, List.of(new RetryMark(leased.get(3).id(), "timeout", now.plus(Duration.ofHours(1)))), now);
            store.markDeadLettered(
                    lease, List.of(new DeadLetterMark(leased.get(4).id(), "unroutable")), now);

            String relation = layout == StoreLayout.APPEND_LOG
                    ? store.config().tableName() + "_events"
                    : store.config().tableName();
            Map<EventStatus, Long> bySql = new EnumMap<>(EventStatus.class);
            try (Connection connection = postgres.dataSource().getConnection();
                    Statement statement = connection.createStatement();
                    ResultSet rows =
                            statement.executeQuery("SELECT status, count(*) FROM " + relation + " GROUP BY status")) {
                while (rows.next()) {
                    bySql.put(EventStatus.fromDatabaseValue(rows.getString(1)), rows.getLong(2));
                }
            }
            Map<EventStatus, Long> byStore = new EnumMap<>(store.countByStatus());
            byStore.values().removeIf(count -> count == 0);
            assertThat(bySql)
                    .isEqualTo(byStore)
                    .containsEntry(EventStatus.SENT, 3L)
                    .containsEntry(EventStatus.FAILED, 1L)
                    .containsEntry(EventStatus.IN_FLIGHT, 1L)
                    .containsEntry(EventStatus.PENDING, 5L);

            if (layout == StoreLayout.APPEND_LOG) {
                assertThatThrownBy(() -> {
                            try (Connection connection = postgres.dataSource().getConnection();
                                    Statement statement = connection.createStatement()) {
                                statement.executeQuery(
                                        "SELECT status FROM " + store.config().tableName());
                            }
                        })
                        .as("the log has no state column to read as pending forever")
                        .isInstanceOf(SQLException.class)
                        .satisfies(e ->
                                assertThat(((SQLException) e).getSQLState()).isEqualTo("42703"));
            }
        } finally {
            tables.drop(store);
        }
    }
}
