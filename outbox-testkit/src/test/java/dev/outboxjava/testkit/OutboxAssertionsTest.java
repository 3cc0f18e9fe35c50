package dev.outboxjava.testkit;

import static dev.outboxjava.testkit.TestEvents.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("OutboxAssertions")
class OutboxAssertionsTest {

    private static final Duration SHORT = Duration.ofMillis(100);

    private final RecordingPublisher publisher = new RecordingPublisher();

    private void publish(OutboxEvent... events) {
        publisher.publish(List.of(events), Duration.ofSeconds(1)).join();
    }

    @Nested
    @DisplayName("awaitPublished")
    class AwaitPublished {

        @Test
        @DisplayName("returns the first published event that matches type, key and payload")
        void findsMatch() {
            OutboxEvent other = event("order.placed", "order-6", "{\"total\":3}");
            OutboxEvent wanted = event("order.placed", "order-7", "{\"total\":12.5}");
            publish(other, wanted);

            OutboxEvent found = OutboxAssertions.awaitPublished(
                    publisher,
                    EventFilter.ofType("order.placed").withKey("order-7").withPayloadContaining("12.5"));

            assertThat(found).isEqualTo(wanted);
        }

        @Test
        @DisplayName("waits for an event that is published later, on another thread")
        void waits() {
            OutboxEvent later = event("order.placed", "order-7");
            CompletableFuture.runAsync(
                    () -> publish(later), CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS));

            assertThat(OutboxAssertions.awaitPublished(publisher, EventFilter.ofKey("order-7")))
                    .isEqualTo(later);
        }

        @Test
        @DisplayName("fails naming what it looked for and listing every event that WAS published")
        void failureListsPublished() {
            OutboxEvent placed = event("order.placed", "order-7", "{\"id\":7}");
            OutboxEvent cancelled = event("order.cancelled", "order-7", "{\"id\":7}");
            publish(placed, cancelled);

            assertThatThrownBy(() -> OutboxAssertions.awaitPublished(
                            publisher, EventFilter.ofType("order.placed").withKey("order-9"), SHORT))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("Expected an event with type=order.placed, key=order-9 to be published "
                            + "within 100 ms, but none was.")
                    .hasMessageContaining("Published: 2 events:")
                    .hasMessageContaining(
                            "1. order.placed key=order-7 id=" + placed.id() + " destination=orders payload={\"id\":7}")
                    .hasMessageContaining("2. order.cancelled key=order-7 id=" + cancelled.id());
        }

        @Test
        @DisplayName("says so when nothing at all was published")
        void failureWhenNothing() {
            assertThatThrownBy(
                            () -> OutboxAssertions.awaitPublished(publisher, EventFilter.ofType("order.placed"), SHORT))
                    .hasMessageContaining("Published: nothing");
        }

        @Test
        @DisplayName("with a count, returns that many matches and fails saying how many came")
        void count() {
            OutboxEvent one = event("order.placed", "o-1");
            OutboxEvent two = event("order.placed", "o-2");
            publish(one, event("order.paid", "o-1"), two);

            assertThat(OutboxAssertions.awaitPublished(publisher, EventFilter.ofType("order.placed"), 2, SHORT))
                    .containsExactly(one, two);
            assertThatThrownBy(() ->
                            OutboxAssertions.awaitPublished(publisher, EventFilter.ofType("order.placed"), 3, SHORT))
                    .hasMessageStartingWith(
                            "Expected 3 events with type=order.placed to be published " + "within 100 ms, but 2 were.")
                    .hasMessageContaining("Published: 3 events:");
        }

        @Test
        @DisplayName("shows a binary payload by its size and cuts a long one")
        void payloadRendering() {
            OutboxEvent binary = OutboxEvent.builder()
                    .type("blob.stored")
                    .destination("blobs")
                    .payload(new byte[] {0, 1, 2, (byte) 0xFF})
                    .build();
            OutboxEvent longText = event("doc.stored", null, "x".repeat(500));
            publish(binary, longText);

            assertThatThrownBy(() -> OutboxAssertions.awaitPublished(publisher, EventFilter.ofType("none"), SHORT))
                    .hasMessageContaining("payload=<4 bytes, not UTF-8>")
                    .hasMessageContaining("key=-")
                    .hasMessageContaining("x".repeat(120) + "... (500 bytes)");
        }
    }

    @Nested
    @DisplayName("assertNothingPublished")
    class NothingPublished {

        @Test
        @DisplayName("passes when no matching event is published during the quiet period")
        void passes() {
            publish(event("order.placed", "order-7"));

            OutboxAssertions.assertNothingPublished(publisher, EventFilter.ofKey("order-8"), SHORT);
        }

        @Test
        @DisplayName("fails, listing what was published, when a rolled-back order's event got out anyway")
        void fails() {
            OutboxEvent leaked = event("order.placed", "order-8");
            publish(event("order.placed", "order-7"), leaked);

            assertThatThrownBy(() -> OutboxAssertions.assertNothingPublished(
                            publisher, EventFilter.ofKey("order-8"), Duration.ofSeconds(5)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageStartingWith("Expected no event with key=order-8 to be published within 5 s, but 1 was.")
                    .hasMessageContaining("2. order.placed key=order-8 id=" + leaked.id());
        }

        @Test
        @DisplayName("with any event and no quiet period, fails on anything already published")
        void anythingImmediately() {
            publish(event("order.placed", "order-7"));

            assertThatThrownBy(() ->
                            OutboxAssertions.assertNothingPublished(publisher, EventFilter.anyEvent(), Duration.ZERO))
                    .hasMessageStartingWith("Expected nothing to be published, but 1 was.");
        }
    }

    @Nested
    @DisplayName("messages read from a broker")
    class Received {

        private final List<ReceivedMessage> consumed = new CopyOnWriteArrayList<>();

        private ReceivedMessage message(String type, String key) {
            return new ReceivedMessage(
                    UUID.randomUUID().toString(),
                    type,
                    "/orders",
                    Optional.ofNullable(key),
                    "application/json",
                    Map.of("tenant", "acme"),
                    "{}".getBytes(StandardCharsets.UTF_8));
        }

        @Test
        @DisplayName("awaitReceived finds a matching message and fails listing the received ones")
        void awaitReceived() {
            ReceivedMessage placed = message("order.placed", "order-7");
            consumed.add(placed);

            assertThat(OutboxAssertions.awaitReceived(
                            () -> consumed, EventFilter.ofType("order.placed").withHeader("tenant", "acme"), SHORT))
                    .isEqualTo(placed);
            assertThatThrownBy(
                            () -> OutboxAssertions.awaitReceived(() -> consumed, EventFilter.ofKey("order-9"), SHORT))
                    .hasMessageContaining("Expected an event with key=order-9 to be received within 100 ms")
                    .hasMessageContaining("Received: 1 event:")
                    .hasMessageContaining("1. order.placed key=order-7 id=" + placed.id() + " headers={tenant=acme}");
        }

        @Test
        @DisplayName("assertNothingReceived fails on a matching message")
        void nothingReceived() {
            consumed.add(message("order.placed", "order-8"));

            OutboxAssertions.assertNothingReceived(() -> consumed, EventFilter.ofKey("order-7"), SHORT);
            assertThatThrownBy(() ->
                            OutboxAssertions.assertNothingReceived(() -> consumed, EventFilter.ofKey("order-8"), SHORT))
                    .hasMessageContaining("but 1 was");
        }
    }

    @Nested
    @DisplayName("against a store")
    class AgainstStore {

        private final ManualClock clock = ManualClock.startingAtEpochOf2024();
        private final InMemoryOutboxStore store = new InMemoryOutboxStore();

        @Test
        @DisplayName("assertNotInOutbox passes for an unknown id and fails describing a stored one")
        void notInOutbox() {
            OutboxEvent stored = event(clock, "order.placed", "order-7", "{}");
            store.append(stored);

            OutboxAssertions.assertNotInOutbox(store, UUID.randomUUID());
            assertThatThrownBy(() -> OutboxAssertions.assertNotInOutbox(store, stored.id()))
                    .hasMessageContaining("Expected no outbox event with id " + stored.id())
                    .hasMessageContaining("type=order.placed");
        }

        @Test
        @DisplayName("assertOutboxEmpty fails with the count per state")
        void empty() {
            OutboxAssertions.assertOutboxEmpty(store);
            store.append(event(clock, "order.placed", "order-7", "{}"));

            assertThatThrownBy(() -> OutboxAssertions.assertOutboxEmpty(store))
                    .hasMessage("Expected an empty outbox, but it holds pending=1, in_flight=0, sent=0, failed=0");
        }

        @Test
        @DisplayName("awaitDrained passes once nothing is pending or in flight")
        void drained() {
            OutboxEvent event = event(clock, "order.placed", "order-7", "{}");
            store.append(event);
            UUID lease = UUID.randomUUID();
            store.lease(lease, 10, clock.instant());
            CompletableFuture.runAsync(
                    () -> store.markPublished(lease, List.of(event.id()), clock.instant()),
                    CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS));

            OutboxAssertions.awaitDrained(store);
        }

        @Test
        @DisplayName("awaitDrained fails with the counts, the oldest pending event and a hint")
        void notDrained() {
            store.append(event(clock, "order.placed", "order-7", "{}"), event(clock, "order.placed", "order-8", "{}"));
            store.lease(UUID.randomUUID(), 1, clock.instant());

            assertThatThrownBy(() -> OutboxAssertions.awaitDrained(store, SHORT))
                    .hasMessageStartingWith("Expected the outbox to be drained (nothing pending or in flight) within "
                            + "100 ms, but it holds pending=1, in_flight=1, sent=0, failed=0; the oldest pending event "
                            + "was appended at 2024-01-01T00:00:00Z.")
                    .hasMessageContaining("Is a relay running");
        }

        @Test
        @DisplayName("assertNoDeadLetters lists each dead letter with its last error")
        void deadLetters() {
            OutboxAssertions.assertNoDeadLetters(store);
            OutboxEvent event = event(clock, "invoice.issued", "order-7", "{}");
            store.append(event);
            UUID lease = UUID.randomUUID();
            store.lease(lease, 10, clock.instant());
            store.markDeadLettered(
                    lease, List.of(new DeadLetterMark(event.id(), "message too large")), clock.instant());

            assertThatThrownBy(() -> OutboxAssertions.assertNoDeadLetters(store))
                    .hasMessageContaining("Expected no dead letters, but the outbox holds 1")
                    .hasMessageContaining("1. invoice.issued key=order-7 id=" + event.id())
                    .hasMessageContaining("attempts=1 lastError=message too large");
        }
    }

    @Test
    @DisplayName("EventFilter describes itself as a sentence")
    void describes() {
        assertThat(EventFilter.anyEvent().describe()).isEqualTo("any event");
        assertThat(EventFilter.ofType("order.placed")
                        .withKey("o-1")
                        .withHeader("tenant", "acme")
                        .withPayload(p -> p.length > 0, "a non-empty payload")
                        .describe())
                .isEqualTo("an event with type=order.placed, key=o-1, header tenant=acme, a non-empty payload");
    }
}
