package dev.outboxjava.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.EventPage;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.RelayResult;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("InMemoryOutboxStore")
class InMemoryOutboxStoreTest {

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final InMemoryOutboxStore store = new InMemoryOutboxStore();

    private OutboxEvent event(String type) {
        return OutboxEvent.builder()
                .type(type)
                .destination("d")
                .payload(new byte[0])
                .clock(clock)
                .build();
    }

    private List<OutboxEvent> append(int count, String type) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(event(type));
        }
        return store.append(events);
    }

    private OutboxEvent stored(OutboxEvent event) {
        return store.find(event.id()).orElseThrow();
    }

    /** Leases and dead-letters the given (due, pending) events. */
    private void deadLetter(List<OutboxEvent> events) {
        UUID lease = UUID.randomUUID();
        store.lease(lease, Integer.MAX_VALUE, clock.instant());
        store.markDeadLettered(
                lease,
                events.stream()
                        .map(e -> new DeadLetterMark(e.id(), "poison " + e.type()))
                        .toList(),
                clock.instant());
    }

    @Nested
    @DisplayName("appending")
    class Appending {

        @Test
        @DisplayName("assigns increasing sequences in append order")
        void sequences() {
            List<OutboxEvent> events = append(3, "t");
            assertThat(events).extracting(OutboxEvent::sequence).containsExactly(1L, 2L, 3L);
        }

        @Test
        @DisplayName("refuses an id that is already stored, and stores none of that call's events")
        void duplicateId() {
            OutboxEvent first = store.append(event("t")).get(0);
            OutboxEvent fresh = event("t");
            OutboxEvent again = OutboxEvent.builder()
                    .id(first.id())
                    .type("t")
                    .destination("d")
                    .payload(new byte[0])
                    .clock(clock)
                    .build();

            assertThatThrownBy(() -> store.append(fresh, again))
                    .isInstanceOf(OutboxException.class)
                    .hasMessageContaining(first.id().toString());
            assertThat(store.all()).hasSize(1);
        }
    }

    @Nested
    @DisplayName("leasing and marking")
    class LeasingAndMarking {

        @Test
        @DisplayName("two leases never receive the same event")
        void leasesAreDisjoint() {
            append(5, "t");
            List<OutboxEvent> first = store.lease(UUID.randomUUID(), 3, clock.instant());
            List<OutboxEvent> second = store.lease(UUID.randomUUID(), 3, clock.instant());

            assertThat(first).hasSize(3);
            assertThat(second).hasSize(2);
            assertThat(first)
                    .extracting(OutboxEvent::id)
                    .doesNotContainAnyElementsOf(
                            second.stream().map(OutboxEvent::id).toList());
        }

        @Test
        @DisplayName("a mark under another lease id changes nothing and reports lease-lost")
        void wrongLease() {
            OutboxEvent event = append(1, "t").get(0);
            store.lease(UUID.randomUUID(), 1, clock.instant());
            OutboxEvent before = stored(event);

            MarkResult result = store.markPublished(UUID.randomUUID(), List.of(event.id()), clock.instant());

            assertThat(result.marked()).isEmpty();
            assertThat(result.leaseLost()).containsExactly(event.id());
            assertThat(stored(event)).isEqualTo(before);
        }

        @Test
        @DisplayName("a mark for an unknown event reports lease-lost")
        void unknownEvent() {
            UUID unknown = UUID.randomUUID();
            assertThat(store.markRetry(
                                    UUID.randomUUID(),
                                    List.of(new RetryMark(unknown, "x", clock.instant())),
                                    clock.instant())
                            .leaseLost())
                    .containsExactly(unknown);
        }

        @Test
        @DisplayName("release returns events to pending untried, attempts unchanged")
        void release() {
            OutboxEvent event = append(1, "t").get(0);
            UUID lease = UUID.randomUUID();
            store.lease(lease, 1, clock.instant());

            assertThat(store.release(lease, List.of(event.id()), clock.instant())
                            .marked())
                    .containsExactly(event.id());
            assertThat(stored(event).status()).isEqualTo(EventStatus.PENDING);
            assertThat(stored(event).attempts()).isZero();
            assertThat(stored(event).leaseId()).isEmpty();
        }

        @Test
        @DisplayName("an unavailable store throws OutboxStoreException and reports itself down")
        void unavailable() {
            store.setAvailable(false);
            assertThatThrownBy(() -> store.lease(UUID.randomUUID(), 1, clock.instant()))
                    .isInstanceOf(OutboxStoreException.class);
            assertThat(store.checkHealth().healthy()).isFalse();
            store.setAvailable(true);
            assertThat(store.checkHealth().healthy()).isTrue();
        }
    }

    @Nested
    @DisplayName("requeueing dead letters")
    class Requeue {

        @Test
        @DisplayName("moves the selected dead letters to pending, due now, attempts reset, last error kept")
        void requeueByIds() {
            List<OutboxEvent> events = append(3, "t");
            deadLetter(events);
            clock.advance(Duration.ofHours(1));

            long requeued = store.requeueDeadLetters(
                    DeadLetterFilter.ids(Set.of(events.get(0).id())), "ops", clock.instant());

            assertThat(requeued).isEqualTo(1);
            OutboxEvent back = stored(events.get(0));
            assertThat(back.status()).isEqualTo(EventStatus.PENDING);
            assertThat(back.attempts()).isZero();
            assertThat(back.lastError()).contains("poison t");
            assertThat(back.nextAttemptAt()).isEqualTo(clock.instant());
            assertThat(stored(events.get(1)).status()).isEqualTo(EventStatus.FAILED);
            assertThat(store.lease(UUID.randomUUID(), 10, clock.instant()))
                    .extracting(OutboxEvent::id)
                    .containsExactly(events.get(0).id());
        }

        @Test
        @DisplayName("by type takes only dead letters of that type")
        void requeueByType() {
            List<OutboxEvent> orders = append(2, "order.placed");
            List<OutboxEvent> payments = append(1, "payment.taken");
            deadLetter(List.of(orders.get(0), orders.get(1), payments.get(0)));

            assertThat(store.requeueDeadLetters(
                            DeadLetterFilter.any().withType("order.placed"), "ops", clock.instant()))
                    .isEqualTo(2);
            assertThat(stored(payments.get(0)).status()).isEqualTo(EventStatus.FAILED);
        }

        @Test
        @DisplayName("all takes every dead letter and nothing else")
        void requeueAll() {
            List<OutboxEvent> dead = append(2, "t");
            deadLetter(dead);
            OutboxEvent pending = append(1, "t").get(0);
            OutboxEvent inFlight = append(1, "t").get(0);
            store.lease(UUID.randomUUID(), 2, clock.instant()); // pending and inFlight, in sequence order
            UUID lease = store.find(pending.id()).orElseThrow().leaseId().orElseThrow();
            store.release(lease, List.of(pending.id()), clock.instant());

            assertThat(store.requeueDeadLetters(DeadLetterFilter.any(), "ops", clock.instant()))
                    .isEqualTo(2);
            assertThat(stored(inFlight).status()).isEqualTo(EventStatus.IN_FLIGHT);
            assertThat(store.countByStatus())
                    .containsEntry(EventStatus.PENDING, 3L)
                    .containsEntry(EventStatus.FAILED, 0L);
        }

        @Test
        @DisplayName("ignores ids of events that are not dead letters")
        void ignoresOtherStates() {
            OutboxEvent pending = append(1, "t").get(0);
            assertThat(store.requeueDeadLetters(
                            DeadLetterFilter.ids(Set.of(pending.id(), UUID.randomUUID())), "ops", clock.instant()))
                    .isZero();
            assertThat(stored(pending).status()).isEqualTo(EventStatus.PENDING);
        }

        @Test
        @DisplayName("lists dead letters oldest first, a page at a time")
        void listDeadLetters() {
            List<OutboxEvent> dead = append(5, "t");
            deadLetter(dead);
            EventPage first = store.findDeadLetters(DeadLetterFilter.any(), OptionalLong.empty(), 2);
            assertThat(first.events())
                    .extracting(OutboxEvent::id)
                    .containsExactly(dead.get(0).id(), dead.get(1).id());
            assertThat(store.findDeadLetters(DeadLetterFilter.any(), first.next(), 10)
                            .events())
                    .extracting(OutboxEvent::id)
                    .containsExactly(
                            dead.get(2).id(), dead.get(3).id(), dead.get(4).id());
        }
    }

    @Nested
    @DisplayName("purging")
    class Purge {

        @Test
        @DisplayName("deletes terminal events of the given status created before the cutoff, and nothing else")
        void purgesOld() {
            List<OutboxEvent> oldDead = append(2, "t");
            deadLetter(oldDead);
            Instant cutoff = clock.instant().plusSeconds(1);
            clock.advance(Duration.ofSeconds(1));
            List<OutboxEvent> newDead = append(1, "t");
            deadLetter(newDead);
            clock.set(Instant.parse("2023-12-31T00:00:00Z")); // appended "before" the cutoff, but still pending
            OutboxEvent pending = store.append(event("t")).get(0);

            assertThat(store.purgeDeadLetters(
                            DeadLetterFilter.any().withCreated(Optional.empty(), Optional.of(cutoff)),
                            "ops",
                            clock.instant()))
                    .isEqualTo(2);
            assertThat(store.find(oldDead.get(0).id())).isEmpty();
            assertThat(store.find(newDead.get(0).id())).isPresent();
            assertThat(store.find(pending.id())).isPresent();
            assertThat(store.purgeSent(cutoff, "ops", clock.instant())).isZero();
        }
    }

    @Nested
    @DisplayName("in DELETE_ON_PUBLISH mode")
    class DeleteOnPublish {

        private final InMemoryOutboxStore deleting = new InMemoryOutboxStore(CompletionMode.DELETE_ON_PUBLISH);

        @Test
        @DisplayName("a published event is deleted instead of kept as sent")
        void deletesOnPublish() {
            OutboxEvent event = deleting.append(event("t")).get(0);
            UUID lease = UUID.randomUUID();
            deleting.lease(lease, 1, clock.instant());

            MarkResult result = deleting.markPublished(lease, List.of(event.id()), clock.instant());

            assertThat(result.marked()).containsExactly(event.id());
            assertThat(deleting.find(event.id())).isEmpty();
            assertThat(deleting.countByStatus()).containsEntry(EventStatus.SENT, 0L);
        }

        @Test
        @DisplayName("a mark under a stale lease deletes nothing")
        void staleLeaseDeletesNothing() {
            OutboxEvent event = deleting.append(event("t")).get(0);
            deleting.lease(UUID.randomUUID(), 1, clock.instant());

            MarkResult result = deleting.markPublished(UUID.randomUUID(), List.of(event.id()), clock.instant());

            assertThat(result.leaseLost()).containsExactly(event.id());
            assertThat(deleting.find(event.id()))
                    .get()
                    .extracting(OutboxEvent::status)
                    .isEqualTo(EventStatus.IN_FLIGHT);
        }

        @Test
        @DisplayName("failed events are kept: retried ones stay pending, dead letters stay for an operator")
        void failuresKept() {
            List<OutboxEvent> events = deleting.append(event("t"), event("t"));
            UUID lease = UUID.randomUUID();
            deleting.lease(lease, 2, clock.instant());
            deleting.markRetry(
                    lease, List.of(new RetryMark(events.get(0).id(), "x", clock.instant())), clock.instant());
            deleting.markDeadLettered(
                    lease, List.of(new DeadLetterMark(events.get(1).id(), "y")), clock.instant());

            assertThat(deleting.find(events.get(0).id()))
                    .get()
                    .extracting(OutboxEvent::status)
                    .isEqualTo(EventStatus.PENDING);
            assertThat(deleting.find(events.get(1).id()))
                    .get()
                    .extracting(OutboxEvent::status)
                    .isEqualTo(EventStatus.FAILED);
        }

        @Test
        @DisplayName("the relay counts deleted events as published and the table empties")
        void relayOverDeletingStore() {
            deleting.append(event("t"), event("t"), event("t"));
            Publisher acknowledgeAll = new Publisher() {
                @Override
                public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
                    return CompletableFuture.completedFuture(batch.stream()
                            .map(e -> PublishOutcome.published(e.id()))
                            .toList());
                }

                @Override
                public HealthCheck checkHealth() {
                    return HealthCheck.up("ack all");
                }

                @Override
                public void close() {}
            };
            Relay relay = new Relay(
                    deleting,
                    acknowledgeAll,
                    new RelayConfig(10, Duration.ofMillis(50)),
                    RetryPolicy.ofDefaults(),
                    clock,
                    RelayListener.NONE);

            RelayResult result = relay.runOnce();

            assertThat(result.published()).isEqualTo(3);
            assertThat(deleting.all()).isEmpty();
        }
    }

    @Nested
    @DisplayName("operator queries")
    class Queries {

        @Test
        @DisplayName("count every state, zero included")
        void countsEveryState() {
            assertThat(store.countByStatus())
                    .containsOnlyKeys(EventStatus.values())
                    .allSatisfy((status, count) -> assertThat(count).isZero());
        }

        @Test
        @DisplayName("report when the oldest pending event was appended")
        void oldestPending() {
            assertThat(store.oldestPendingCreatedAt()).isEmpty();
            Instant first = clock.instant();
            append(1, "t");
            clock.advance(Duration.ofMinutes(1));
            append(1, "t");
            assertThat(store.oldestPendingCreatedAt()).contains(first);
        }
    }
}
