package dev.outboxjava.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.DeadLetterSelector;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.core.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * What a store must do when {@link Ordering.Mode#PER_KEY} ordering is on: a lease hands out, per key,
 * only the contiguous run of due events that no earlier event of the key blocks, so one relay at a
 * time works on a key and a failing event holds back only its own key. Adopt it like
 * {@link OutboxStoreContract}.
 */
public abstract class OrderedOutboxStoreContract {

    private final ManualClock clock = new ManualClock(Instant.parse("2024-03-01T10:00:00Z"));
    private final List<OutboxStore> created = new ArrayList<>();

    /** A new, empty store that keeps sent events and orders per key as given. */
    protected abstract OutboxStore newStore(Ordering ordering);

    /** Appends events (one transaction). */
    protected abstract void append(OutboxStore store, List<OutboxEvent> events);

    /** Releases what {@link #newStore} made. Default: nothing. */
    protected void destroy(OutboxStore store) {}

    @AfterEach
    void destroyStores() {
        created.forEach(this::destroy);
        created.clear();
    }

    private OutboxStore store(Ordering.AfterDeadLetter afterDeadLetter) {
        OutboxStore store = newStore(Ordering.perKey(afterDeadLetter));
        created.add(store);
        return store;
    }

    private Instant now() {
        return clock.instant();
    }

    private OutboxEvent event(String key, int n) {
        OutboxEvent.Builder builder = OutboxEvent.builder()
                .clock(clock)
                .type("account.changed")
                .destination("accounts")
                .payload(("" + n).getBytes(StandardCharsets.UTF_8));
        if (key != null) {
            builder.key(key);
        }
        return builder.build();
    }

    /** Appends, one transaction per event so sequences follow the list. */
    private List<OutboxEvent> appendEach(OutboxStore store, List<OutboxEvent> events) {
        events.forEach(e -> append(store, List.of(e)));
        return events;
    }

    /**
     * Leases, retrying for a while when nothing comes back: a store with a commit-order guard (the
     * PostgreSQL one) may hold events back while another session on a shared server keeps an older
     * transaction open. Only for leases the test expects to return something.
     */
    private List<OutboxEvent> leaseExpectingEvents(OutboxStore store, UUID leaseId, int limit) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        List<OutboxEvent> leased = store.lease(leaseId, limit, now());
        while (leased.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            leased = store.lease(leaseId, limit, now());
        }
        return leased;
    }

    private List<OutboxEvent> leaseExpectingEvents(OutboxStore store, int limit) {
        return leaseExpectingEvents(store, UUID.randomUUID(), limit);
    }

    private static List<UUID> ids(List<OutboxEvent> events) {
        return events.stream().map(OutboxEvent::id).toList();
    }

    @Nested
    @DisplayName("leasing per key")
    class Leasing {

        @Test
        @DisplayName("a lease takes the due events of a key as one run, in sequence order")
        void contiguousRun() {
            OutboxStore store = store(Ordering.AfterDeadLetter.HOLD_KEY);
            List<OutboxEvent> events =
                    appendEach(store, List.of(event("a", 1), event("b", 1), event("a", 2), event("a", 3)));

            assertThat(leaseExpectingEvents(store, 10))
                    .extracting(OutboxEvent::id)
                    .containsExactlyElementsOf(ids(events));
        }

        @Test
        @DisplayName("while a key has an event in flight, a second lease gets none of that key's events")
        void oneLeaseHolderPerKey() {
            OutboxStore store = store(Ordering.AfterDeadLetter.HOLD_KEY);
            OutboxEvent a1 = event("a", 1);
            appendEach(store, List.of(a1));
            assertThat(leaseExpectingEvents(store, 10))
                    .extracting(OutboxEvent::id)
                    .containsExactly(a1.id());
            OutboxEvent a2 = event("a", 2);
            OutboxEvent b1 = event("b", 1);
            appendEach(store, List.of(a2, b1));

            assertThat(leaseExpectingEvents(store, 10))
                    .extracting(OutboxEvent::id)
                    .containsExactly(b1.id());
        }

        @Test
        @DisplayName("a limit that cuts a key's run leaves its later events for the next lease")
        void limitCutsRun() {
            OutboxStore store = store(Ordering.AfterDeadLetter.HOLD_KEY);
            List<OutboxEvent> events = appendEach(store, List.of(event("a", 1), event("a", 2), event("a", 3)));
            UUID first = UUID.randomUUID();
            assertThat(leaseExpectingEvents(store, first, 2))
                    .extracting(OutboxEvent::id)
                    .containsExactlyElementsOf(ids(events.subList(0, 2)));
            assertThat(store.lease(UUID.randomUUID(), 10, now())).isEmpty();

            store.markPublished(first, ids(events.subList(0, 2)), now());
            assertThat(leaseExpectingEvents(store, 10))
                    .extracting(OutboxEvent::id)
                    .containsExactly(events.get(2).id());
        }

        @Test
        @DisplayName("events without a key are never held back")
        void keylessNeverOrdered() {
            OutboxStore store = store(Ordering.AfterDeadLetter.HOLD_KEY);
            List<OutboxEvent> events = appendEach(store, List.of(event(null, 1), event(null, 2)));
            assertThat(leaseExpectingEvents(store, 1)).hasSize(1);
            assertThat(leaseExpectingEvents(store, 10))
                    .extracting(OutboxEvent::id)
                    .containsExactly(events.get(1).id());
        }
    }

    @Nested
    @DisplayName("a failing event")
    class Failures {

        @Test
        @DisplayName("waiting for its retry, it holds back the later events of its key only")
        void retryHoldsItsKeyOnly() {
            OutboxStore store = store(Ordering.AfterDeadLetter.HOLD_KEY);
            OutboxEvent a1 = event("a", 1);
            OutboxEvent a2 = event("a", 2);
            OutboxEvent b1 = event("b", 1);
            appendEach(store, List.of(a1, a2, b1));
            UUID lease = UUID.randomUUID();
            leaseExpectingEvents(store, lease, 10);
            store.markRetry(lease, List.of(new RetryMark(a1.id(), "broker down", now().plusSeconds(30))), now());
            store.release(lease, List.of(a2.id()), now());
            store.markPublished(lease, List.of(b1.id()), now());
            OutboxEvent b2 = event("b", 2);
            appendEach(store, List.of(b2));

            assertThat(leaseExpectingEvents(store, 10))
                    .extracting(OutboxEvent::id)
                    .containsExactly(b2.id());

            clock.advance(Duration.ofSeconds(30));
            assertThat(leaseExpectingEvents(store, 10))
                    .extracting(OutboxEvent::id)
                    .containsExactly(a1.id(), a2.id());
        }

        @Test
        @DisplayName("dead-lettered under HOLD_KEY, it holds its key until an operator requeues it")
        void deadLetterHoldsKey() {
            OutboxStore store = store(Ordering.AfterDeadLetter.HOLD_KEY);
            OutboxEvent a1 = event("a", 1);
            OutboxEvent a2 = event("a", 2);
            appendEach(store, List.of(a1));
            UUID lease = UUID.randomUUID();
            leaseExpectingEvents(store, lease, 10);
            store.markDeadLettered(lease, List.of(new DeadLetterMark(a1.id(), "poison")), now());
            appendEach(store, List.of(a2));

            assertThat(store.lease(UUID.randomUUID(), 10, now())).isEmpty();

            store.requeueDeadLetters(DeadLetterSelector.byIds(Set.of(a1.id())), now());
            assertThat(leaseExpectingEvents(store, 10))
                    .extracting(OutboxEvent::id)
                    .containsExactly(a1.id(), a2.id());
        }

        @Test
        @DisplayName("the events it holds back count as held in the backlog, not as eligible, as the lease decides")
        void backlogCountsHeldEvents() {
            for (Ordering.AfterDeadLetter afterDeadLetter : Ordering.AfterDeadLetter.values()) {
                OutboxStore store = store(afterDeadLetter);
                Instant start = now();
                OutboxEvent a1 = event("a", 1);
                OutboxEvent a2 = event("a", 2);
                OutboxEvent c1 = event("c", 1);
                appendEach(store, List.of(a1, a2, c1));
                UUID lease = UUID.randomUUID();
                assertThat(leaseExpectingEvents(store, lease, 10)).hasSize(3);
                store.markRetry(lease, List.of(new RetryMark(a1.id(), "broker down", start.plusSeconds(30))), now());
                store.release(lease, List.of(a2.id()), now());
                store.markDeadLettered(lease, List.of(new DeadLetterMark(c1.id(), "poison")), now());
                clock.advance(Duration.ofSeconds(1));
                OutboxEvent c2 = event("c", 2);
                OutboxEvent b1 = event("b", 1);
                appendEach(store, List.of(c2, b1));

                boolean holds = afterDeadLetter == Ordering.AfterDeadLetter.HOLD_KEY;
                assertThat(store.backlog(now()))
                        .as(afterDeadLetter.toString())
                        .isEqualTo(new Backlog(holds ? 1 : 2, Optional.of(start.plusSeconds(1)), 1, 0, holds ? 2 : 1));
                assertThat(leaseExpectingEvents(store, 10))
                        .as(afterDeadLetter.toString())
                        .extracting(OutboxEvent::id)
                        .containsExactlyElementsOf(holds ? List.of(b1.id()) : List.of(c2.id(), b1.id()));
                clock.advance(Duration.ofMinutes(1));
            }
        }

        @Test
        @DisplayName("behind an earlier event of its key in flight, a due event is eligible in the backlog, not held")
        void backlogCountsEventsBehindAnEventInFlightAsEligible() {
            OutboxStore store = store(Ordering.AfterDeadLetter.HOLD_KEY);
            Instant start = now();
            OutboxEvent a1 = event("a", 1);
            appendEach(store, List.of(a1));
            assertThat(leaseExpectingEvents(store, 10))
                    .extracting(OutboxEvent::id)
                    .containsExactly(a1.id());
            clock.advance(Duration.ofSeconds(1));
            OutboxEvent a2 = event("a", 2);
            appendEach(store, List.of(a2));

            assertThat(store.backlog(now())).isEqualTo(new Backlog(1, Optional.of(start.plusSeconds(1)), 0, 0, 0));
            assertThat(store.lease(UUID.randomUUID(), 10, now()))
                    .as("the lease still waits for a1")
                    .isEmpty();
        }

        @Test
        @DisplayName("dead-lettered under CONTINUE, its key goes on with the next event")
        void deadLetterContinues() {
            OutboxStore store = store(Ordering.AfterDeadLetter.CONTINUE);
            OutboxEvent a1 = event("a", 1);
            OutboxEvent a2 = event("a", 2);
            appendEach(store, List.of(a1));
            UUID lease = UUID.randomUUID();
            leaseExpectingEvents(store, lease, 10);
            store.markDeadLettered(lease, List.of(new DeadLetterMark(a1.id(), "poison")), now());
            appendEach(store, List.of(a2));

            assertThat(leaseExpectingEvents(store, 10))
                    .extracting(OutboxEvent::id)
                    .containsExactly(a2.id());
        }
    }
}
