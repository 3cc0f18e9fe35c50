package dev.outboxjava.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.core.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link OutboxStore} must have. An adapter adopts it by extending this class
 * and supplying a fresh, empty store per test plus a way to append:
 *
 * <pre>{@code
 * class MyStoreContractIT extends OutboxStoreContract {
 *     protected OutboxStore newStore() { return new MyStore(freshTable()); }
 *     protected void append(OutboxStore store, List<OutboxEvent> events) { ((MyStore) store).append(events); }
 * }
 * }</pre>
 *
 * <p>All times come from {@link #clock()}, a {@link ManualClock} at whole milliseconds (so stores with
 * microsecond timestamps round-trip them exactly). The store must keep sent events
 * ({@link dev.outboxjava.core.port.CompletionMode#KEEP_SENT}).
 */
public abstract class OutboxStoreContract {

    private final ManualClock clock = new ManualClock(Instant.parse("2024-03-01T10:00:00Z"));
    private OutboxStore store;

    /** A new, empty store that keeps sent events; called before each test. */
    protected abstract OutboxStore newStore();

    /** Appends events (one transaction) to a store made by {@link #newStore()}. */
    protected abstract void append(OutboxStore store, List<OutboxEvent> events);

    /** Releases what {@link #newStore()} made (drop a table, close a pool). Default: nothing. */
    protected void destroy(OutboxStore store) {}

    /**
     * Whether {@link OutboxStore#cleanUp} deletes sent events one by one, at most its limit per call.
     * A store that removes them by dropping whole partitions returns false: it keeps a sent event while
     * anything else in its partition is still needed, and the contract then checks only that a clean-up
     * never removes a dead letter, a pending event or a recent sent one (test the drops separately).
     */
    protected boolean cleansUpRowByRow() {
        return true;
    }

    /** The clock every time in the contract is read from. */
    protected final ManualClock clock() {
        return clock;
    }

    @BeforeEach
    void createStore() {
        store = newStore();
    }

    @AfterEach
    void destroyStore() {
        destroy(store);
    }

    private Instant now() {
        return clock.instant();
    }

    private OutboxEvent event(String type, String key) {
        OutboxEvent.Builder builder = OutboxEvent.builder()
                .clock(clock)
                .type(type)
                .destination("orders")
                .payload(("{\"type\":\"" + type + "\"}").getBytes(StandardCharsets.UTF_8));
        if (key != null) {
            builder.key(key);
        }
        return builder.build();
    }

    private List<OutboxEvent> appendEvents(int count) {
        List<OutboxEvent> events = IntStream.range(0, count)
                .mapToObj(i -> event("order.placed", "order-" + i))
                .toList();
        append(store, events);
        return events;
    }

    private static Set<UUID> ids(List<OutboxEvent> events) {
        return events.stream().map(OutboxEvent::id).collect(Collectors.toSet());
    }

    private OutboxEvent stored(UUID id) {
        return store.find(id).orElseThrow(() -> new AssertionError("event " + id + " not found in the store"));
    }

    @Nested
    @DisplayName("appending and reading")
    class Appending {

        @Test
        @DisplayName("an appended event reads back with every field intact and a sequence assigned")
        void roundTrip() {
            OutboxEvent original = OutboxEvent.builder()
                    .clock(clock)
                    .type("order.placed")
                    .source("/orders")
                    .key("order-42")
                    .destination("orders-topic")
                    .routingKey("orders.placed")
                    .contentType("application/octet-stream")
                    .payload(new byte[] {0, 1, 2, (byte) 0xFF})
                    .header("tenant", "acme")
                    .header("trace.id", "abc-123")
                    .maxAttempts(7)
                    .build();
            append(store, List.of(original));

            OutboxEvent read = stored(original.id());
            assertThat(read.type()).isEqualTo("order.placed");
            assertThat(read.source()).isEqualTo("/orders");
            assertThat(read.key()).contains("order-42");
            assertThat(read.destination()).isEqualTo("orders-topic");
            assertThat(read.routingKey()).isEqualTo("orders.placed");
            assertThat(read.contentType()).isEqualTo("application/octet-stream");
            assertThat(read.payload()).containsExactly(0, 1, 2, 0xFF);
            assertThat(read.headers()).isEqualTo(Map.of("tenant", "acme", "trace.id", "abc-123"));
            assertThat(read.status()).isEqualTo(EventStatus.PENDING);
            assertThat(read.attempts()).isZero();
            assertThat(read.maxAttempts()).isEqualTo(7);
            assertThat(read.createdAt()).isEqualTo(now());
            assertThat(read.nextAttemptAt()).isEqualTo(now());
            assertThat(read.leaseId()).isEmpty();
            assertThat(read.sequence()).isPositive();
        }

        @Test
        @DisplayName("an id already in the outbox is refused, in a later transaction and within one append")
        void oneEventPerId() {
            UUID id = UUID.randomUUID();
            append(store, List.of(withId(id, "first")));
            OutboxEvent second = withId(id, "second");
            OutboxEvent other = event("order.placed", "order-1");

            assertThatThrownBy(() -> append(store, List.of(other, second)))
                    .isInstanceOf(OutboxException.class)
                    .hasMessageContaining("already in the outbox");
            OutboxEvent twice = event("order.placed", "order-2");
            assertThatThrownBy(() -> append(store, List.of(twice, twice)))
                    .isInstanceOf(OutboxException.class)
                    .hasMessageContaining(twice.id().toString());

            assertThat(stored(id).payload()).asString(StandardCharsets.UTF_8).isEqualTo("first");
            assertThat(store.find(other.id()))
                    .as("nothing of a refused append is kept")
                    .isEmpty();
            assertThat(store.find(twice.id())).isEmpty();
            assertThat(store.lease(UUID.randomUUID(), 10, now()))
                    .extracting(OutboxEvent::id)
                    .containsExactly(id);
        }

        @Test
        @DisplayName(
                "a copy of an appended event with new content keeps its id, and is refused like any id given twice")
        void editedCopyOfAnAppendedEvent() {
            OutboxEvent original = event("order.placed", "order-3");
            append(store, List.of(original));
            OutboxEvent edited = original.withContent("edited".getBytes(StandardCharsets.UTF_8), Map.of());

            assertThatThrownBy(() -> append(store, List.of(edited)))
                    .isInstanceOf(OutboxException.class)
                    .hasMessageContaining("already in the outbox");
            assertThat(stored(original.id()).payload()).isEqualTo(original.payload());
        }

        private OutboxEvent withId(UUID id, String payload) {
            return OutboxEvent.builder()
                    .clock(clock)
                    .id(id)
                    .type("order.placed")
                    .destination("orders")
                    .payload(payload.getBytes(StandardCharsets.UTF_8))
                    .build();
        }

        @Test
        @DisplayName("an event without a key reads back without one")
        void noKey() {
            OutboxEvent original = event("order.placed", null);
            append(store, List.of(original));
            assertThat(stored(original.id()).key()).isEmpty();
        }

        @Test
        @DisplayName("events appended together get increasing sequences in append order")
        void sequences() {
            List<OutboxEvent> events = appendEvents(5);
            List<Long> sequences =
                    events.stream().map(e -> stored(e.id()).sequence()).toList();
            assertThat(sequences).isSorted().doesNotHaveDuplicates();
        }

        @Test
        @DisplayName("an unknown id is not found")
        void unknown() {
            assertThat(store.find(UUID.randomUUID())).isEmpty();
        }
    }

    @Nested
    @DisplayName("leasing")
    class Leasing {

        @Test
        @DisplayName("due pending events are leased oldest first, moved in flight under the lease id")
        void leasesDueEvents() {
            List<OutboxEvent> events = appendEvents(3);
            UUID leaseId = UUID.randomUUID();

            List<OutboxEvent> leased = store.lease(leaseId, 10, now());

            assertThat(leased)
                    .extracting(OutboxEvent::id)
                    .containsExactlyElementsOf(ids(events).stream()
                            .sorted((a, b) ->
                                    Long.compare(stored(a).sequence(), stored(b).sequence()))
                            .toList());
            assertThat(leased).allSatisfy(e -> {
                assertThat(e.status()).isEqualTo(EventStatus.IN_FLIGHT);
                assertThat(e.leaseId()).contains(leaseId);
                assertThat(e.leasedAt()).contains(now());
            });
            assertThat(stored(events.get(0).id()).status()).isEqualTo(EventStatus.IN_FLIGHT);
        }

        @Test
        @DisplayName("no more than the limit is leased, and the rest stays pending")
        void respectsLimit() {
            appendEvents(5);
            assertThat(store.lease(UUID.randomUUID(), 2, now())).hasSize(2);
            assertThat(store.countByStatus())
                    .containsEntry(EventStatus.PENDING, 3L)
                    .containsEntry(EventStatus.IN_FLIGHT, 2L);
        }

        @Test
        @DisplayName("an event is never leased twice while its lease holds")
        void neverTwice() {
            List<OutboxEvent> events = appendEvents(4);
            List<OutboxEvent> first = store.lease(UUID.randomUUID(), 3, now());
            List<OutboxEvent> second = store.lease(UUID.randomUUID(), 10, now());
            assertThat(ids(first)).doesNotContainAnyElementsOf(ids(second));
            assertThat(first.size() + second.size()).isEqualTo(events.size());
            assertThat(store.lease(UUID.randomUUID(), 10, now())).isEmpty();
        }

        @Test
        @DisplayName("an event whose next attempt is in the future is not leased until then")
        void notBeforeDue() {
            OutboxEvent later = OutboxEvent.builder()
                    .clock(clock)
                    .type("reminder")
                    .destination("orders")
                    .payload(new byte[0])
                    .availableAt(now().plusSeconds(60))
                    .build();
            append(store, List.of(later));

            assertThat(store.lease(UUID.randomUUID(), 10, now())).isEmpty();
            clock.advance(Duration.ofSeconds(60));
            assertThat(store.lease(UUID.randomUUID(), 10, now()))
                    .extracting(OutboxEvent::id)
                    .containsExactly(later.id());
        }

        @Test
        @DisplayName("an empty store leases nothing")
        void empty() {
            assertThat(store.lease(UUID.randomUUID(), 10, now())).isEmpty();
        }
    }

    @Nested
    @DisplayName("marking under a lease")
    class Marking {

        @Test
        @DisplayName("published events become sent, with the time of the mark")
        void published() {
            List<OutboxEvent> events = appendEvents(2);
            UUID leaseId = UUID.randomUUID();
            store.lease(leaseId, 10, now());
            clock.advance(Duration.ofMillis(250));

            MarkResult result = store.markPublished(leaseId, ids(events), now());

            assertThat(result.marked()).isEqualTo(ids(events));
            assertThat(result.leaseLost()).isEmpty();
            assertThat(stored(events.get(0).id()).status()).isEqualTo(EventStatus.SENT);
            assertThat(stored(events.get(0).id()).sentAt()).contains(now());
        }

        @Test
        @DisplayName("a retried event returns to pending with one more attempt, its error and its next time")
        void retried() {
            OutboxEvent event = appendEvents(1).get(0);
            UUID leaseId = UUID.randomUUID();
            store.lease(leaseId, 10, now());
            Instant next = now().plusSeconds(30);

            MarkResult result =
                    store.markRetry(leaseId, List.of(new RetryMark(event.id(), "broker down", next)), now());

            assertThat(result.marked()).containsExactly(event.id());
            OutboxEvent read = stored(event.id());
            assertThat(read.status()).isEqualTo(EventStatus.PENDING);
            assertThat(read.attempts()).isEqualTo(1);
            assertThat(read.lastError()).contains("broker down");
            assertThat(read.nextAttemptAt()).isEqualTo(next);
            assertThat(read.leaseId()).isEmpty();
            assertThat(store.lease(UUID.randomUUID(), 10, now())).isEmpty();
            clock.advance(Duration.ofSeconds(30));
            assertThat(store.lease(UUID.randomUUID(), 10, now())).hasSize(1);
        }

        @Test
        @DisplayName("a dead-lettered event becomes failed with one more attempt and its error")
        void deadLettered() {
            OutboxEvent event = appendEvents(1).get(0);
            UUID leaseId = UUID.randomUUID();
            store.lease(leaseId, 10, now());

            store.markDeadLettered(leaseId, List.of(new DeadLetterMark(event.id(), "record too large")), now());

            OutboxEvent read = stored(event.id());
            assertThat(read.status()).isEqualTo(EventStatus.FAILED);
            assertThat(read.attempts()).isEqualTo(1);
            assertThat(read.lastError()).contains("record too large");
            assertThat(store.countByStatus()).containsEntry(EventStatus.FAILED, 1L);
        }

        @Test
        @DisplayName("a released event returns to pending untried: attempts unchanged, leasable at once")
        void released() {
            OutboxEvent event = appendEvents(1).get(0);
            UUID leaseId = UUID.randomUUID();
            store.lease(leaseId, 10, now());

            assertThat(store.release(leaseId, List.of(event.id()), now()).marked())
                    .containsExactly(event.id());

            OutboxEvent read = stored(event.id());
            assertThat(read.status()).isEqualTo(EventStatus.PENDING);
            assertThat(read.attempts()).isZero();
            assertThat(store.lease(UUID.randomUUID(), 10, now())).hasSize(1);
        }

        @Test
        @DisplayName("a mark with a stale lease id changes nothing and reports lease-lost")
        void staleLease() {
            OutboxEvent event = appendEvents(1).get(0);
            store.lease(UUID.randomUUID(), 10, now());
            UUID stale = UUID.randomUUID();

            MarkResult published = store.markPublished(stale, List.of(event.id()), now());
            MarkResult retried = store.markRetry(stale, List.of(new RetryMark(event.id(), "x", now())), now());
            MarkResult dead = store.markDeadLettered(stale, List.of(new DeadLetterMark(event.id(), "x")), now());
            MarkResult released = store.release(stale, List.of(event.id()), now());

            for (MarkResult result : List.of(published, retried, dead, released)) {
                assertThat(result.marked()).isEmpty();
                assertThat(result.leaseLost()).containsExactly(event.id());
            }
            OutboxEvent read = stored(event.id());
            assertThat(read.status()).isEqualTo(EventStatus.IN_FLIGHT);
            assertThat(read.attempts()).isZero();
        }

        @Test
        @DisplayName("after a sweep and a new lease, only the new holder can mark")
        void takenOver() {
            OutboxEvent event = appendEvents(1).get(0);
            UUID first = UUID.randomUUID();
            store.lease(first, 10, now());
            clock.advance(Duration.ofMinutes(5));
            assertThat(store.sweepExpiredLeases(now().minus(Duration.ofMinutes(1)), 100))
                    .isEqualTo(1);
            UUID second = UUID.randomUUID();
            assertThat(store.lease(second, 10, now())).hasSize(1);

            assertThat(store.markPublished(first, List.of(event.id()), now()).leaseLost())
                    .containsExactly(event.id());
            assertThat(stored(event.id()).status()).isEqualTo(EventStatus.IN_FLIGHT);
            assertThat(store.markPublished(second, List.of(event.id()), now()).marked())
                    .containsExactly(event.id());
            assertThat(stored(event.id()).status()).isEqualTo(EventStatus.SENT);
        }

        @Test
        @DisplayName("a second mark of the same event under the same lease is lease-lost: it is no longer in flight")
        void markTwice() {
            OutboxEvent event = appendEvents(1).get(0);
            UUID leaseId = UUID.randomUUID();
            store.lease(leaseId, 10, now());
            store.markPublished(leaseId, List.of(event.id()), now());

            MarkResult again = store.markDeadLettered(leaseId, List.of(new DeadLetterMark(event.id(), "late")), now());

            assertThat(again.leaseLost()).containsExactly(event.id());
            assertThat(stored(event.id()).status()).isEqualTo(EventStatus.SENT);
        }

        @Test
        @DisplayName("a batch mark reports each event on its own: held ones marked, lost or unknown ones lease-lost")
        void mixedBatch() {
            List<OutboxEvent> events = appendEvents(3);
            UUID leaseId = UUID.randomUUID();
            store.lease(leaseId, 2, now());
            UUID notLeased = events.get(2).id();
            UUID unknown = UUID.randomUUID();
            List<UUID> request =
                    new ArrayList<>(List.of(events.get(0).id(), events.get(1).id(), notLeased, unknown));

            MarkResult result = store.markPublished(leaseId, request, now());

            assertThat(result.marked())
                    .containsExactlyInAnyOrder(events.get(0).id(), events.get(1).id());
            assertThat(result.leaseLost()).containsExactlyInAnyOrder(notLeased, unknown);
            assertThat(stored(notLeased).status()).isEqualTo(EventStatus.PENDING);
        }

        @Test
        @DisplayName("marking an empty collection is a no-op")
        void emptyMark() {
            assertThat(store.markPublished(UUID.randomUUID(), List.of(), now())).isEqualTo(MarkResult.empty());
        }
    }

    @Nested
    @DisplayName("sweeping expired leases")
    class Sweeping {

        @Test
        @DisplayName("leases taken before the cutoff return to pending with attempts unchanged; newer ones stay")
        void sweeps() {
            List<OutboxEvent> events = appendEvents(2);
            store.lease(UUID.randomUUID(), 1, now());
            clock.advance(Duration.ofMinutes(2));
            store.lease(UUID.randomUUID(), 1, now());

            int reclaimed = store.sweepExpiredLeases(now().minus(Duration.ofMinutes(1)), 100);

            assertThat(reclaimed).isEqualTo(1);
            OutboxEvent old = stored(events.get(0).id());
            assertThat(old.status()).isEqualTo(EventStatus.PENDING);
            assertThat(old.attempts()).isZero();
            assertThat(old.leaseId()).isEmpty();
            assertThat(stored(events.get(1).id()).status()).isEqualTo(EventStatus.IN_FLIGHT);
        }

        @Test
        @DisplayName("a sweep reclaims at most its limit")
        void bounded() {
            appendEvents(5);
            store.lease(UUID.randomUUID(), 5, now());
            clock.advance(Duration.ofMinutes(10));
            assertThat(store.sweepExpiredLeases(now(), 3)).isEqualTo(3);
            assertThat(store.sweepExpiredLeases(now(), 3)).isEqualTo(2);
            assertThat(store.sweepExpiredLeases(now(), 3)).isZero();
        }
    }

    @Nested
    @DisplayName("cleaning up")
    class CleaningUp {

        @Test
        @DisplayName("only sent events sent before the cutoff are deleted, at most the limit per call")
        void deletesOldSent() {
            List<OutboxEvent> events = appendEvents(4);
            UUID leaseId = UUID.randomUUID();
            store.lease(leaseId, 4, now());
            store.markPublished(
                    leaseId,
                    List.of(
                            events.get(0).id(),
                            events.get(1).id(),
                            events.get(2).id()),
                    now());
            store.markDeadLettered(
                    leaseId, List.of(new DeadLetterMark(events.get(3).id(), "bad")), now());
            clock.advance(Duration.ofDays(8));
            OutboxEvent fresh = appendEvents(1).get(0);

            if (cleansUpRowByRow()) {
                assertThat(store.cleanUp(now().minus(Duration.ofDays(7)), 2)).isEqualTo(2);
                assertThat(store.cleanUp(now().minus(Duration.ofDays(7)), 2)).isEqualTo(1);
                assertThat(store.cleanUp(now().minus(Duration.ofDays(7)), 2)).isZero();
            } else {
                for (int run = 0; run < 3; run++) {
                    store.cleanUp(now().minus(Duration.ofDays(7)), 2);
                }
            }

            assertThat(store.find(events.get(3).id())).map(OutboxEvent::status).contains(EventStatus.FAILED);
            assertThat(store.find(fresh.id())).map(OutboxEvent::status).contains(EventStatus.PENDING);
        }

        @Test
        @DisplayName("sent events inside the retention window are kept")
        void keepsRecent() {
            OutboxEvent event = appendEvents(1).get(0);
            UUID leaseId = UUID.randomUUID();
            store.lease(leaseId, 1, now());
            store.markPublished(leaseId, List.of(event.id()), now());
            assertThat(store.cleanUp(now().minus(Duration.ofDays(7)), 100)).isZero();
            assertThat(store.find(event.id())).isPresent();
        }
    }

    @Nested
    @DisplayName("operator queries")
    class Operating {

        private List<OutboxEvent> deadLetters(int count, String type) {
            List<OutboxEvent> events = IntStream.range(0, count)
                    .mapToObj(i -> event(type, "k" + i))
                    .toList();
            append(store, events);
            UUID leaseId = UUID.randomUUID();
            store.lease(leaseId, 1000, now());
            store.markDeadLettered(
                    leaseId,
                    events.stream()
                            .map(e -> new DeadLetterMark(e.id(), "boom " + type))
                            .toList(),
                    now());
            return events;
        }

        @Test
        @DisplayName("counts by status list every status, zero when empty")
        void counts() {
            assertThat(store.countByStatus())
                    .containsOnlyKeys(EventStatus.values())
                    .allSatisfy((status, count) -> assertThat(count).isZero());
            appendEvents(3);
            UUID leaseId = UUID.randomUUID();
            List<OutboxEvent> leased = store.lease(leaseId, 2, now());
            store.markPublished(leaseId, List.of(leased.get(0).id()), now());
            assertThat(store.countByStatus())
                    .containsEntry(EventStatus.PENDING, 1L)
                    .containsEntry(EventStatus.IN_FLIGHT, 1L)
                    .containsEntry(EventStatus.SENT, 1L)
                    .containsEntry(EventStatus.FAILED, 0L);
        }

        @Test
        @DisplayName("the oldest pending event's creation time is reported; nothing when none is pending")
        void oldestPending() {
            assertThat(store.oldestPendingCreatedAt()).isEmpty();
            Instant first = now();
            appendEvents(1);
            clock.advance(Duration.ofSeconds(5));
            appendEvents(1);
            assertThat(store.oldestPendingCreatedAt()).contains(first);
        }

        @Test
        @DisplayName("the backlog tells eligible events from those waiting for a retry or scheduled for later")
        void backlog() {
            assertThat(store.backlog(now())).isEqualTo(Backlog.EMPTY);
            Instant start = now();
            OutboxEvent eligible = event("order.placed", "a");
            OutboxEvent scheduled = OutboxEvent.builder()
                    .clock(clock)
                    .type("order.reminder")
                    .destination("orders")
                    .key("b")
                    .availableAt(start.plus(Duration.ofHours(1)))
                    .payload(new byte[] {1})
                    .build();
            OutboxEvent failing = event("order.placed", "c");
            append(store, List.of(eligible, scheduled, failing));
            UUID leaseId = UUID.randomUUID();
            assertThat(store.lease(leaseId, 10, now()))
                    .extracting(OutboxEvent::id)
                    .containsExactlyInAnyOrder(eligible.id(), failing.id());
            store.release(leaseId, List.of(eligible.id()), now());
            store.markRetry(
                    leaseId,
                    List.of(new RetryMark(failing.id(), "broker down", start.plus(Duration.ofMinutes(5)))),
                    now());
            clock.advance(Duration.ofSeconds(30));

            Backlog backlog = store.backlog(now());
            assertThat(backlog).isEqualTo(new Backlog(1, Optional.of(start), 1, 1, 0));
            assertThat(backlog.oldestEligibleWait(now())).isEqualTo(Duration.ofSeconds(30));
            assertThat(backlog.pending()).isEqualTo(3);

            // a retry that falls due is eligible from its next attempt time on, not from its creation
            clock.advance(Duration.ofMinutes(10));
            UUID second = UUID.randomUUID();
            List<OutboxEvent> leased = store.lease(second, 1, now());
            assertThat(leased).extracting(OutboxEvent::id).containsExactly(eligible.id());
            store.markPublished(second, List.of(eligible.id()), now());
            assertThat(store.backlog(now()))
                    .isEqualTo(new Backlog(1, Optional.of(start.plus(Duration.ofMinutes(5))), 0, 1, 0));

            // a scheduled event is eligible from its availableAt on
            clock.advance(Duration.ofHours(1));
            assertThat(store.backlog(now()))
                    .isEqualTo(new Backlog(2, Optional.of(start.plus(Duration.ofMinutes(5))), 0, 0, 0));
        }

        @Test
        @DisplayName("a reachable store reports itself healthy")
        void healthy() {
            assertThat(store.checkHealth().healthy()).isTrue();
        }
    }

    @Nested
    @DisplayName("concurrent leasing")
    class Concurrency {

        @Test
        @DisplayName("four leasers at once never lease an event twice and together lease all")
        void concurrentLeasers() throws Exception {
            int total = 2_000;
            List<OutboxEvent> events = new ArrayList<>();
            for (int i = 0; i < total; i += 500) {
                List<OutboxEvent> chunk = IntStream.range(i, i + 500)
                        .mapToObj(n -> event("t", "k" + n))
                        .toList();
                append(store, chunk);
                events.addAll(chunk);
            }
            List<Thread> threads = new ArrayList<>();
            List<List<UUID>> perThread = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                List<UUID> mine = new ArrayList<>();
                perThread.add(mine);
                threads.add(new Thread(() -> {
                    List<OutboxEvent> batch;
                    do {
                        batch = store.lease(UUID.randomUUID(), 50, now());
                        batch.forEach(e -> mine.add(e.id()));
                    } while (!batch.isEmpty());
                }));
            }
            threads.forEach(Thread::start);
            for (Thread thread : threads) {
                thread.join();
            }
            Set<UUID> union = new HashSet<>();
            int sum = 0;
            for (List<UUID> mine : perThread) {
                union.addAll(mine);
                sum += mine.size();
            }
            assertThat(sum)
                    .as("leases in total (a duplicate would make this exceed the event count)")
                    .isEqualTo(total);
            assertThat(union).isEqualTo(ids(events));
            assertThat(store.countByStatus()).containsEntry(EventStatus.IN_FLIGHT, (long) total);
        }
    }
}
