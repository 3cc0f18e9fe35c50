package dev.outboxjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.time.ManualClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("AppendableEvents: what a store refuses before writing anything")
class AppendableEventsTest {

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    private OutboxEvent valid() {
        return OutboxEvent.builder()
                .type("order.placed")
                .destination("orders")
                .payload(new byte[0])
                .clock(clock)
                .build();
    }

    /** An event assembled without the builder, as a caller could with {@link OutboxEvent#restore()}. */
    private OutboxEvent.Restorer assembled() {
        return OutboxEvent.restore()
                .id(UUID.randomUUID())
                .type("order.placed")
                .destination("orders")
                .nextAttemptAt(clock.instant())
                .createdAt(clock.instant());
    }

    private static void assertRefused(List<OutboxEvent> events, String field, String... parts) {
        assertThatThrownBy(() -> AppendableEvents.require(events))
                .isInstanceOfSatisfying(
                        InvalidEventException.class, e -> assertThat(e.field()).isEqualTo(field))
                .hasMessageContaining("'" + field + "'")
                .hasMessageContainingAll(parts);
    }

    @Test
    @DisplayName("accepts an empty list and events from the builder")
    void acceptsValid() {
        assertThatCode(() -> AppendableEvents.require(List.of())).doesNotThrowAnyException();
        assertThatCode(() -> AppendableEvents.require(List.of(valid(), valid())))
                .doesNotThrowAnyException();
    }

    @Test
    @DisplayName("refuses the same id twice in one append, naming 'id'")
    void duplicateId() {
        OutboxEvent event = valid();
        assertRefused(List.of(event, valid(), event), "id", event.id().toString(), "twice");
    }

    @Test
    @DisplayName("refuses a null list, naming 'events'")
    void nullList() {
        assertRefused(null, "events", "is null");
    }

    @Test
    @DisplayName("refuses a null element, naming 'events' and its index")
    void nullElement() {
        assertRefused(Arrays.asList(valid(), null), "events", "element 1 is null");
    }

    @Test
    @DisplayName("refuses an event that is not pending, naming 'status'")
    void notPending() {
        assertRefused(List.of(assembled().status(EventStatus.SENT).build()), "status", "pending");
    }

    @Test
    @DisplayName("refuses an assembled event with a NUL in a header value")
    void assembledNul() {
        assertRefused(List.of(assembled().headers(Map.of("tenant", "a\0")).build()), "headers", "NUL");
    }

    @Test
    @DisplayName("refuses an assembled event with a NUL in the key or a lone surrogate in the type")
    void assembledText() {
        assertRefused(List.of(assembled().key(Optional.of("k\0")).build()), "key", "NUL");
        assertRefused(List.of(assembled().type("t\uD800").build()), "type", "surrogate");
    }

    @Test
    @DisplayName("refuses an assembled event whose source is not a URI reference")
    void assembledSource() {
        assertRefused(List.of(assembled().source("not a uri").build()), "source", "URI");
    }

    @Test
    @DisplayName("refuses an assembled event with a CloudEvents header of its own")
    void assembledReservedHeader() {
        assertRefused(
                List.of(assembled().headers(Map.of("cloudEvents_id", "spoof")).build()), "headers", "reserved");
    }

    @Test
    @DisplayName("refuses an assembled event due at a time the outbox cannot store, naming 'availableAt'")
    void assembledTime() {
        assertRefused(List.of(assembled().nextAttemptAt(Instant.MAX).build()), "availableAt", "outside");
    }

    @Test
    @DisplayName("refuses the whole list when one element is bad")
    void oneBadElement() {
        List<OutboxEvent> events = new ArrayList<>(List.of(valid(), valid()));
        events.add(assembled().type("\0").build());
        assertRefused(events, "type", "NUL");
    }
}
