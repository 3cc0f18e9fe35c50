package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
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
 * The append-only layout reads the log by transaction snapshots: a writing transaction left open holds
 * back only its own events, and those are leased once it commits, although the position has moved past
 * events of transactions that began after it.
 */
class LogLayoutCommitOrderIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private final Instant now = Instant.parse("2024-03-01T10:00:00Z");
    private PostgresOutboxStore store;

    @BeforeEach
    void createStore() {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName(postgres.schema() + ".commit_order")
                .layout(StoreLayout.APPEND_LOG)
                .wakeUpMode(WakeUpMode.NONE)
                .build();
        store = PostgresOutboxStore.create(postgres.dataSource(), config);
        store.ensureSchema();
    }

    @AfterEach
    void dropStore() {
        postgres.fixture()
                .execute(LogLayoutDdl.drop(
                        Identifiers.tableName("tableName", store.config().tableName())));
    }

    @Test
    @DisplayName("an open writing transaction holds back only its own events, which are leased once it commits")
    void openWriterHoldsBackOnlyItsOwnEvents() throws Exception {
        List<OutboxEvent> early = events("early", 2);
        try (Connection writer = postgres.dataSource().getConnection()) {
            writer.setAutoCommit(false);
            store.writer().append(writer, early); // the writer now has a transaction id older than what follows

            List<OutboxEvent> later = events("later", 3);
            store.transactional().inTransaction(connection -> later);
            List<OutboxEvent> afterThem = events("after", 2);
            store.transactional().inTransaction(connection -> afterThem);

            assertThat(store.lease(UUID.randomUUID(), 3, now))
                    .extracting(OutboxEvent::id)
                    .containsExactlyElementsOf(ids(later));
            assertThat(store.lease(UUID.randomUUID(), 10, now))
                    .extracting(OutboxEvent::id)
                    .containsExactlyElementsOf(ids(afterThem));
            assertThat(store.lease(UUID.randomUUID(), 10, now)).isEmpty();

            writer.commit();
        }
        assertThat(store.lease(UUID.randomUUID(), 10, now))
                .extracting(OutboxEvent::id)
                .containsExactlyElementsOf(ids(early));
        assertThat(store.countByStatus())
                .containsEntry(EventStatus.PENDING, 0L)
                .containsEntry(EventStatus.IN_FLIGHT, 7L);
    }

    @Test
    @DisplayName("the events of a transaction that rolls back are never leased, and nothing after it is lost")
    void rolledBackWriter() throws Exception {
        try (Connection writer = postgres.dataSource().getConnection()) {
            writer.setAutoCommit(false);
            store.writer().append(writer, events("doomed", 2));
            List<OutboxEvent> later = events("later", 2);
            store.transactional().inTransaction(connection -> later);
            assertThat(store.countByStatus()).containsEntry(EventStatus.PENDING, 2L);
            assertThat(store.lease(UUID.randomUUID(), 10, now))
                    .extracting(OutboxEvent::id)
                    .containsExactlyElementsOf(ids(later));
            writer.rollback();
        }
        List<OutboxEvent> last = events("last", 1);
        store.transactional().inTransaction(connection -> last);
        assertThat(store.lease(UUID.randomUUID(), 10, now))
                .extracting(OutboxEvent::id)
                .containsExactlyElementsOf(ids(last));
        assertThat(store.countByStatus()).containsEntry(EventStatus.PENDING, 0L);
    }

    @Test
    @DisplayName("an event created after the lease read its clock is leased at once; a scheduled one waits")
    void createdAfterTheLeaseClock() throws Exception {
        Clock ahead = Clock.fixed(now.plusSeconds(5), ZoneOffset.UTC);
        OutboxEvent unscheduled = event(ahead, "late-clock", null);
        OutboxEvent scheduled = event(Clock.fixed(now, ZoneOffset.UTC), "scheduled", now.plusSeconds(5));
        store.transactional().inTransaction(connection -> List.of(unscheduled, scheduled));

        assertThat(store.lease(UUID.randomUUID(), 10, now))
                .extracting(OutboxEvent::id)
                .containsExactly(unscheduled.id());
        try (Connection connection = postgres.dataSource().getConnection();
                var statement = connection.createStatement();
                var rs = statement.executeQuery(
                        "SELECT id FROM " + store.config().tableName() + "_state")) {
            // only the scheduled event waits in the state table: the other one never passed through it
            assertThat(rs.next()).isTrue();
            assertThat(rs.getObject(1)).isEqualTo(scheduled.id());
            assertThat(rs.next()).isFalse();
        }
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(5)))
                .extracting(OutboxEvent::id)
                .containsExactly(scheduled.id());
    }

    private static OutboxEvent event(Clock clock, String type, Instant availableAt) {
        return OutboxEvent.builder()
                .clock(clock)
                .type(type)
                .destination("orders")
                .payload(type.getBytes(StandardCharsets.UTF_8))
                .availableAt(availableAt)
                .build();
    }

    private List<OutboxEvent> events(String type, int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> OutboxEvent.builder()
                        .clock(Clock.fixed(now, ZoneOffset.UTC))
                        .type(type)
                        .destination("orders")
                        .key(type + "-" + i)
                        .payload(type.getBytes(StandardCharsets.UTF_8))
                        .build())
                .toList();
    }

    private static List<UUID> ids(List<OutboxEvent> events) {
        return events.stream().map(OutboxEvent::id).toList();
    }
}
