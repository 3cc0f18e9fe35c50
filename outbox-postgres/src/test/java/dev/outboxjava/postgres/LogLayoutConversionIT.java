package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A table of the default layout converted to the append-only layout (relay stopped) keeps every event
 * in its state, and the append-only store goes on from there.
 */
class LogLayoutConversionIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private final Instant start = Instant.parse("2024-03-01T10:00:00Z");
    private PostgresOutboxConfig inPlace;

    @AfterEach
    void drop() {
        postgres.fixture().execute(LogLayoutDdl.drop(Identifiers.tableName("tableName", inPlace.tableName())));
    }

    @Test
    @DisplayName("sent, retrying, dead-lettered, in-flight, pending and scheduled events keep their state and go on")
    void convertsEveryState() {
        inPlace = PostgresOutboxConfig.builder()
                .tableName(postgres.schema() + ".converted")
                .layout(StoreLayout.IN_PLACE)
                .wakeUpMode(WakeUpMode.NONE)
                .build();
        PostgresOutboxStore before = PostgresOutboxStore.create(postgres.dataSource(), inPlace);
        before.ensureSchema();
        List<OutboxEvent> events = List.of(event("a"), event("b"), event("c"), event("d"), event("e"), event("f"));
        OutboxEvent scheduled = OutboxEvent.builder()
                .clock(Clock.fixed(start, ZoneOffset.UTC))
                .type("g")
                .destination("orders")
                .payload(new byte[] {1})
                .availableAt(start.plus(Duration.ofHours(1)))
                .build();
        before.transactional().inTransaction(connection -> events);
        before.transactional().inTransaction(connection -> List.of(scheduled));
        UUID lease = UUID.randomUUID();
        assertThat(before.lease(lease, 5, start)).hasSize(5);
        before.markPublished(lease, List.of(id(events, 0), id(events, 1)), start);
        before.markRetry(lease, List.of(new RetryMark(id(events, 2), "broker down", start.plusSeconds(60))), start);
        before.markDeadLettered(lease, List.of(new DeadLetterMark(id(events, 3), "too large")), start);
        // events.get(4) stays in flight: the relay was stopped before it marked it

        PostgresOutboxConfig appendLog =
                inPlace.toBuilder().layout(StoreLayout.APPEND_LOG).build();
        PostgresSchema.convertToAppendLog(postgres.dataSource(), appendLog);
        PostgresOutboxStore after = PostgresOutboxStore.create(postgres.dataSource(), appendLog);
        assertThatThrownBy(() -> PostgresSchema.convertToAppendLog(postgres.dataSource(), appendLog))
                .as("converted twice")
                .isInstanceOf(OutboxStoreException.class)
                .hasMessageContaining("in the append-only layout already");
        assertThat(after.checkHealth().healthy())
                .as(after.checkHealth().detail())
                .isTrue();
        assertThat(before.checkHealth().detail())
                .as("a store still configured for the in-place layout")
                .contains("is in the append-only layout")
                .contains("set layout APPEND_LOG (outbox.store.layout=append_log)");

        assertThat(after.countByStatus())
                .containsEntry(EventStatus.PENDING, 4L)
                .containsEntry(EventStatus.IN_FLIGHT, 0L)
                .containsEntry(EventStatus.SENT, 2L)
                .containsEntry(EventStatus.FAILED, 1L);
        OutboxEvent sent = after.find(id(events, 0)).orElseThrow();
        assertThat(sent.status()).isEqualTo(EventStatus.SENT);
        assertThat(sent.sentAt()).contains(start);
        assertThat(sent.payload()).isEqualTo("a".getBytes(StandardCharsets.UTF_8));
        assertThat(after.listRetrying(0, 10)).extracting(OutboxEvent::id).containsExactly(id(events, 2));
        assertThat(after.listRetrying(0, 10).get(0).lastError()).contains("broker down");
        assertThat(after.findDeadLetters(DeadLetterFilter.any(), OptionalLong.empty(), 10)
                        .events())
                .extracting(OutboxEvent::id)
                .containsExactly(id(events, 3));

        OutboxEvent appendedAfter = event("h");
        after.transactional().inTransaction(connection -> List.of(appendedAfter));
        assertThat(after.lease(UUID.randomUUID(), 10, start))
                .extracting(OutboxEvent::id)
                .containsExactly(id(events, 4), id(events, 5), appendedAfter.id());
        assertThat(after.lease(UUID.randomUUID(), 10, start.plusSeconds(60)))
                .extracting(OutboxEvent::id)
                .containsExactly(id(events, 2));
        assertThat(after.requeueDeadLetters(DeadLetterFilter.any(), "conversion", start.plusSeconds(60)))
                .isEqualTo(1);
        assertThat(after.lease(UUID.randomUUID(), 10, start.plusSeconds(60)))
                .extracting(OutboxEvent::id)
                .containsExactly(id(events, 3));
        assertThat(after.lease(UUID.randomUUID(), 10, start.plus(Duration.ofHours(1))))
                .extracting(OutboxEvent::id)
                .containsExactly(scheduled.id());
    }

    @Test
    @DisplayName(
            "creating the append-only layout over an in-place table fails, naming the conversion, and changes nothing")
    void refusesToTakeOverAnInPlaceTable() throws SQLException {
        inPlace = PostgresOutboxConfig.builder()
                .tableName(postgres.schema() + ".unconverted")
                .layout(StoreLayout.IN_PLACE)
                .wakeUpMode(WakeUpMode.NONE)
                .build();
        PostgresOutboxStore before = PostgresOutboxStore.create(postgres.dataSource(), inPlace);
        before.ensureSchema();
        OutboxEvent pending = event("a");
        before.transactional().inTransaction(connection -> List.of(pending));
        long relations = relationsNamed("unconverted%");
        PostgresOutboxStore appendLog = PostgresOutboxStore.create(
                postgres.dataSource(),
                inPlace.toBuilder().layout(StoreLayout.APPEND_LOG).build());

        assertThatThrownBy(appendLog::ensureSchema)
                .isInstanceOf(OutboxStoreException.class)
                .hasMessageContaining("is in the in-place layout");
        assertThat(appendLog.checkHealth().healthy()).isFalse();
        assertThat(appendLog.checkHealth().detail())
                .contains("is in the in-place layout")
                .contains("set layout IN_PLACE (outbox.store.layout=in_place)");

        assertThat(relationsNamed("unconverted%"))
                .as("tables and views of the table's name")
                .isEqualTo(relations);
        assertThat(before.lease(UUID.randomUUID(), 10, start))
                .extracting(OutboxEvent::id)
                .containsExactly(pending.id());
    }

    @Test
    @DisplayName("a state table without the dead-letter filter columns gets them, filled from the log")
    void addsTheFilterColumnsToAnOlderStateTable() {
        inPlace = PostgresOutboxConfig.builder()
                .tableName(postgres.schema() + ".older")
                .layout(StoreLayout.APPEND_LOG)
                .wakeUpMode(WakeUpMode.NONE)
                .build();
        PostgresOutboxStore store = PostgresOutboxStore.create(postgres.dataSource(), inPlace);
        store.ensureSchema();
        OutboxEvent failing = event("order.paid");
        store.transactional().inTransaction(connection -> List.of(failing, event("order.placed")));
        UUID lease = UUID.randomUUID();
        assertThat(store.lease(lease, 10, start)).hasSize(2);
        store.markDeadLettered(lease, List.of(new DeadLetterMark(failing.id(), "too large")), start);
        postgres.fixture()
                .execute("ALTER TABLE " + inPlace.tableName()
                        + "_state DROP COLUMN type, DROP COLUMN destination, DROP COLUMN created_at");

        store.ensureSchema();

        DeadLetterFilter filter = DeadLetterFilter.any()
                .withType("order.paid")
                .withDestination("orders")
                .withCreated(Optional.of(start), Optional.of(start.plusSeconds(1)));
        assertThat(store.findDeadLetters(filter, OptionalLong.empty(), 10).events())
                .extracting(OutboxEvent::id)
                .containsExactly(failing.id());
    }

    private long relationsNamed(String pattern) throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection();
                PreparedStatement statement = connection.prepareStatement("SELECT count(*) FROM pg_class"
                        + " WHERE relname LIKE ? AND relnamespace = ?::regnamespace AND relkind IN ('r', 'p', 'v')")) {
            statement.setString(1, pattern);
            statement.setString(2, postgres.schema());
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    private OutboxEvent event(String type) {
        return OutboxEvent.builder()
                .clock(Clock.fixed(start, ZoneOffset.UTC))
                .type(type)
                .destination("orders")
                .key(type)
                .payload(type.getBytes(StandardCharsets.UTF_8))
                .build();
    }

    private static UUID id(List<OutboxEvent> events, int index) {
        return events.get(index).id();
    }
}
