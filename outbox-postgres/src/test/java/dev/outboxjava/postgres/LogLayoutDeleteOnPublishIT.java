package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The append-only layout in delete-on-publish mode: a published event is gone, the rest goes on. */
class LogLayoutDeleteOnPublishIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private final Instant now = Instant.parse("2024-03-01T10:00:00Z");
    private PostgresOutboxStore store;

    @AfterEach
    void dropStore() {
        postgres.fixture()
                .execute(LogLayoutDdl.drop(
                        Identifiers.tableName("tableName", store.config().tableName())));
    }

    @Test
    @DisplayName("published events are deleted, marks are still fenced, and later events are leased")
    void deletesPublishedEvents() {
        store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .tableName(postgres.schema() + ".delete_on_publish")
                        .layout(StoreLayout.APPEND_LOG)
                        .completionMode(CompletionMode.DELETE_ON_PUBLISH)
                        .wakeUpMode(WakeUpMode.NONE)
                        .build());
        store.ensureSchema();
        List<OutboxEvent> events = events(3);
        store.transactional().inTransaction(connection -> events);
        UUID lease = UUID.randomUUID();
        assertThat(store.lease(lease, 2, now)).hasSize(2);

        assertThat(store.markPublished(UUID.randomUUID(), List.of(events.get(0).id()), now)
                        .leaseLost())
                .containsExactly(events.get(0).id());
        assertThat(store.markPublished(
                                lease, List.of(events.get(0).id(), events.get(1).id()), now)
                        .marked())
                .containsExactlyInAnyOrder(events.get(0).id(), events.get(1).id());

        assertThat(store.find(events.get(0).id())).isEmpty();
        assertThat(store.countByStatus())
                .containsEntry(EventStatus.SENT, 0L)
                .containsEntry(EventStatus.PENDING, 1L)
                .containsEntry(EventStatus.IN_FLIGHT, 0L);
        assertThat(store.lease(UUID.randomUUID(), 10, now))
                .extracting(OutboxEvent::id)
                .containsExactly(events.get(2).id());
    }

    private List<OutboxEvent> events(int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> OutboxEvent.builder()
                        .clock(Clock.fixed(now, ZoneOffset.UTC))
                        .type("order.placed")
                        .destination("orders")
                        .payload(new byte[] {(byte) i})
                        .build())
                .toList();
    }
}
