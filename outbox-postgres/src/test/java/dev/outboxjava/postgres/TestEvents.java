package dev.outboxjava.postgres;

import dev.outboxjava.core.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

/** Events for the store's own tests. */
final class TestEvents {

    private TestEvents() {}

    static OutboxEvent event(Clock clock, String key) {
        return OutboxEvent.builder()
                .clock(clock)
                .type("order.placed")
                .key(key)
                .destination("orders")
                .payload(("{\"order\":\"" + key + "\"}").getBytes(StandardCharsets.UTF_8))
                .build();
    }

    /** Appends {@code events} to {@code store} in one transaction; returns them in order. */
    static List<OutboxEvent> append(PostgresOutboxStore store, OutboxEvent... events) {
        List<OutboxEvent> list = List.of(events);
        store.transactional().inTransaction(connection -> list);
        return list;
    }

    static List<UUID> ids(List<OutboxEvent> events) {
        return events.stream().map(OutboxEvent::id).toList();
    }

    static List<OutboxEvent> events(Clock clock, int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> event(clock, "order-" + i))
                .toList();
    }
}
