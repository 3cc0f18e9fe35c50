package dev.outboxjava.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.outboxjava.core.DeadLetterReason;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.InvalidEventException;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.ActiveLease;
import dev.outboxjava.core.port.Attempt;
import dev.outboxjava.core.port.AuditEntry;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.DestinationCounts;
import dev.outboxjava.core.port.ErrorCause;
import dev.outboxjava.core.port.EventEdit;
import dev.outboxjava.core.port.EventPage;
import dev.outboxjava.core.port.FailureGroup;
import dev.outboxjava.core.port.HeldKey;
import dev.outboxjava.core.port.OperatorStore;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.core.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * What a store's operator API ({@link OperatorStore}) must do: find dead letters by filter and page
 * through them by position, requeue, purge, edit and requeue them with an audit entry each, name the
 * keys held behind a failed event, the leases held now, the unfinished events per destination, and
 * keep each event's failed attempts.
 * Adopt it like {@link OutboxStoreContract}: the store made by {@link #newStore} implements both ports.
 */
public abstract class OperatorStoreContract {

    private final ManualClock clock = new ManualClock(Instant.parse("2024-03-01T10:00:00Z"));
    private final List<OutboxStore> created = new ArrayList<>();

    /** A new, empty store that keeps sent events, orders as given and implements {@link OperatorStore}. */
    protected abstract OutboxStore newStore(Ordering ordering);

    /** Appends events (one transaction). */
    protected abstract void append(OutboxStore store, List<OutboxEvent> events);

    /** Releases what {@link #newStore} made. Default: nothing. */
    protected void destroy(OutboxStore store) {}

    /**
     * Whether {@link OutboxStore#cleanUp} deletes sent events (and their attempts) one by one. A store that
     * drops whole partitions returns false, and the contract then checks only that a clean-up leaves a dead
     * letter's attempts alone (as {@code OutboxStoreContract.cleansUpRowByRow()}).
     */
    protected boolean cleansUpRowByRow() {
        return true;
    }

    @AfterEach
    void destroyStores() {
        created.forEach(this::destroy);
        created.clear();
    }

    private OutboxStore store(Ordering ordering) {
        OutboxStore store = newStore(ordering);
        created.add(store);
        return store;
    }

    private static OperatorStore operator(OutboxStore store) {
        return (OperatorStore) store;
    }

    private Instant now() {
        return clock.instant();
    }

    private OutboxEvent event(String type, String destination, String key) {
        OutboxEvent.Builder builder = OutboxEvent.builder()
                .clock(clock)
                .type(type)
                .destination(destination)
                .payload(("{\"type\":\"" + type + "\"}").getBytes(StandardCharsets.UTF_8))
                .header("tenant", "acme");
        if (key != null) {
            builder.key(key);
        }
        return builder.build();
    }

    /** Appends the events and dead-letters them, each with its error. */
    private void deadLetter(OutboxStore store, List<OutboxEvent> events, List<String> errors) {
        append(store, events);
        UUID lease = UUID.randomUUID();
        List<OutboxEvent> leased = store.lease(lease, events.size(), now());
        assertThat(leased).hasSize(events.size());
        List<DeadLetterMark> marks = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            marks.add(new DeadLetterMark(events.get(i).id(), errors.get(i)));
        }
        store.markDeadLettered(lease, marks, now());
    }

    /** Five dead letters: two types, two destinations, two keys, two kinds of error, created a minute apart. */
    private List<OutboxEvent> fiveDeadLetters(OutboxStore store) {
        List<OutboxEvent> events = new ArrayList<>();
        String[][] rows = {
            {"order.placed", "orders", "k1"},
            {"order.paid", "orders", "k2"},
            {"order.placed", "billing", "k1"},
            {"order.paid", "billing", "k2"},
            {"order.placed", "orders", "k2"}
        };
        for (String[] row : rows) {
            events.add(event(row[0], row[1], row[2]));
            clock.advance(Duration.ofMinutes(1));
        }
        deadLetter(
                store,
                events,
                List.of(
                        "TimeoutException: no ack",
                        "NO_ROUTE: unroutable",
                        "TimeoutException: no ack",
                        "NO_ROUTE: unroutable",
                        "RecordTooLargeException"));
        return events;
    }

    private static List<UUID> ids(EventPage page) {
        return page.events().stream().map(OutboxEvent::id).toList();
    }

    @Nested
    @DisplayName("finding dead letters")
    class Finding {

        @Test
        @DisplayName(
                "events waiting for a retry are listed soonest retry first, a page at a time, with their last error")
        void listsRetryingEvents() {
            OutboxStore store = store(Ordering.none());
            List<OutboxEvent> events = List.of(
                    event("order.placed", "orders", null),
                    event("order.placed", "orders", null),
                    event("order.placed", "orders", null));
            append(store, events);
            UUID lease = UUID.randomUUID();
            assertThat(store.lease(lease, 3, now())).hasSize(3);
            Instant later = now().plus(Duration.ofMinutes(5));
            Instant sooner = now().plus(Duration.ofMinutes(1));
            store.markRetry(
                    lease,
                    List.of(
                            new RetryMark(events.get(0).id(), "broker said no", later),
                            new RetryMark(events.get(1).id(), "timed out", sooner)),
                    now());
            store.markPublished(lease, List.of(events.get(2).id()), now());

            assertThat(operator(store).listRetrying(0, 10))
                    .extracting(OutboxEvent::id)
                    .containsExactly(events.get(1).id(), events.get(0).id());
            OutboxEvent first = operator(store).listRetrying(0, 1).get(0);
            assertThat(first.lastError()).contains("timed out");
            assertThat(first.attempts()).isEqualTo(1);
            assertThat(first.nextAttemptAt()).isEqualTo(sooner);
            assertThat(operator(store).listRetrying(1, 10))
                    .extracting(OutboxEvent::id)
                    .containsExactly(events.get(0).id());
        }

        @Test
        @DisplayName("each criterion keeps only the dead letters that meet it, in sequence order")
        void filters() {
            OutboxStore store = store(Ordering.none());
            List<OutboxEvent> e = fiveDeadLetters(store);
            append(store, List.of(event("order.placed", "orders", "k1"))); // pending: never a dead letter
            OperatorStore operator = operator(store);
            DeadLetterFilter any = DeadLetterFilter.any();

            assertThat(ids(operator.findDeadLetters(any, OptionalLong.empty(), 10)))
                    .containsExactly(
                            e.get(0).id(),
                            e.get(1).id(),
                            e.get(2).id(),
                            e.get(3).id(),
                            e.get(4).id());
            assertThat(ids(operator.findDeadLetters(any.withType("order.paid"), OptionalLong.empty(), 10)))
                    .containsExactly(e.get(1).id(), e.get(3).id());
            assertThat(ids(operator.findDeadLetters(any.withDestination("billing"), OptionalLong.empty(), 10)))
                    .containsExactly(e.get(2).id(), e.get(3).id());
            assertThat(ids(operator.findDeadLetters(
                            any.withKey("k2").withDestination("orders"), OptionalLong.empty(), 10)))
                    .containsExactly(e.get(1).id(), e.get(4).id());
            assertThat(ids(operator.findDeadLetters(any.withErrorContaining("no_route"), OptionalLong.empty(), 10)))
                    .containsExactly(e.get(1).id(), e.get(3).id());
            assertThat(ids(operator.findDeadLetters(
                            any.withCreated(
                                    Optional.of(e.get(1).createdAt()),
                                    Optional.of(e.get(3).createdAt())),
                            OptionalLong.empty(),
                            10)))
                    .containsExactly(e.get(1).id(), e.get(2).id());
            assertThat(ids(operator.findDeadLetters(
                            any.withIds(Set.of(e.get(4).id(), e.get(0).id())), OptionalLong.empty(), 10)))
                    .containsExactly(e.get(0).id(), e.get(4).id());
            assertThat(operator.countDeadLetters(any.withType("order.placed"))).isEqualTo(3);
            assertThat(operator.countDeadLetters(any.withType("no.such.type"))).isZero();
            assertThat(operator.countDeadLetters(any, 2))
                    .as("a bounded count stops at its bound")
                    .isEqualTo(2);
            assertThat(operator.countDeadLetters(any, 10)).isEqualTo(5);
        }

        @Test
        @DisplayName("pages follow each other by position: every dead letter once, the last page says it is last")
        void keysetPages() {
            OutboxStore store = store(Ordering.none());
            List<OutboxEvent> e = fiveDeadLetters(store);
            OperatorStore operator = operator(store);

            EventPage first = operator.findDeadLetters(DeadLetterFilter.any(), OptionalLong.empty(), 2);
            EventPage second = operator.findDeadLetters(DeadLetterFilter.any(), first.next(), 2);
            EventPage third = operator.findDeadLetters(DeadLetterFilter.any(), second.next(), 2);

            assertThat(ids(first)).containsExactly(e.get(0).id(), e.get(1).id());
            assertThat(ids(second)).containsExactly(e.get(2).id(), e.get(3).id());
            assertThat(ids(third)).containsExactly(e.get(4).id());
            assertThat(first.next()).isPresent();
            assertThat(third.next()).isEmpty();
        }

        @Test
        @DisplayName("a payload with markup and control characters reads back byte for byte")
        void hostilePayload() {
            OutboxStore store = store(Ordering.none());
            byte[] payload = "<script>alert('x')</script>\u0007\u001b[31m".getBytes(StandardCharsets.UTF_8);
            OutboxEvent hostile = OutboxEvent.builder()
                    .clock(clock)
                    .type("evil")
                    .destination("orders")
                    .payload(payload)
                    .header("note", "<img src=x onerror=alert(1)>")
                    .build();
            deadLetter(store, List.of(hostile), List.of("<b>boom</b>"));

            OutboxEvent read = operator(store)
                    .findDeadLetters(DeadLetterFilter.any(), OptionalLong.empty(), 1)
                    .events()
                    .get(0);
            assertThat(read.payload()).isEqualTo(payload);
            assertThat(read.headers()).containsEntry("note", "<img src=x onerror=alert(1)>");
            assertThat(read.lastError()).contains("<b>boom</b>");
        }
    }

    @Nested
    @DisplayName("repairing dead letters")
    class Repairing {

        @Test
        @DisplayName("requeue by filter moves exactly the matching dead letters to pending, due now, attempts "
                + "reset, and records who did it and how many")
        void requeueByFilter() {
            OutboxStore store = store(Ordering.none());
            List<OutboxEvent> e = fiveDeadLetters(store);
            OperatorStore operator = operator(store);

            long requeued = operator.requeueDeadLetters(DeadLetterFilter.any().withType("order.paid"), "alice", now());

            assertThat(requeued).isEqualTo(2);
            OutboxEvent back = store.find(e.get(1).id()).orElseThrow();
            assertThat(back.status()).isEqualTo(EventStatus.PENDING);
            assertThat(back.attempts()).isZero();
            assertThat(back.nextAttemptAt()).isEqualTo(now());
            assertThat(store.find(e.get(0).id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
            assertThat(operator.countDeadLetters(DeadLetterFilter.any())).isEqualTo(3);
            AuditEntry entry = operator.auditTrail(OptionalLong.empty(), 10).get(0);
            assertThat(entry.actor()).isEqualTo("alice");
            assertThat(entry.action()).isEqualTo(AuditEntry.REQUEUE);
            assertThat(entry.affected()).isEqualTo(2);
            assertThat(entry.selection()).contains("type=order.paid");
            assertThat(entry.at()).isEqualTo(now());
        }

        @Test
        @DisplayName("purge by filter deletes exactly the matching dead letters and records it")
        void purgeByFilter() {
            OutboxStore store = store(Ordering.none());
            List<OutboxEvent> e = fiveDeadLetters(store);
            OperatorStore operator = operator(store);

            long purged = operator.purgeDeadLetters(DeadLetterFilter.any().withDestination("billing"), "bob", now());

            assertThat(purged).isEqualTo(2);
            assertThat(store.find(e.get(2).id())).isEmpty();
            assertThat(store.find(e.get(3).id())).isEmpty();
            assertThat(operator.countDeadLetters(DeadLetterFilter.any())).isEqualTo(3);
            assertThat(operator.auditTrail(OptionalLong.empty(), 10))
                    .singleElement()
                    .satisfies(entry -> {
                        assertThat(entry.action()).isEqualTo(AuditEntry.PURGE);
                        assertThat(entry.affected()).isEqualTo(2);
                        assertThat(entry.actor()).isEqualTo("bob");
                    });
        }

        @Test
        @DisplayName(
                "purge of sent events deletes those created before the cutoff, with their attempts, and records it")
        void purgeSent() {
            OutboxStore store = store(Ordering.none());
            OutboxEvent old = event("order.placed", "orders", null);
            OutboxEvent dead = event("order.placed", "orders", null);
            clock.advance(Duration.ofHours(1));
            OutboxEvent recent = event("order.paid", "orders", null);
            append(store, List.of(old, dead, recent));
            UUID first = UUID.randomUUID();
            store.lease(first, 3, now());
            store.markRetry(first, List.of(new RetryMark(old.id(), "once", now())), now());
            store.markDeadLettered(first, List.of(new DeadLetterMark(dead.id(), "never")), now());
            store.markPublished(first, List.of(recent.id()), now());
            UUID second = UUID.randomUUID();
            assertThat(store.lease(second, 3, now()))
                    .extracting(OutboxEvent::id)
                    .containsExactly(old.id());
            store.markPublished(second, List.of(old.id()), now());

            long purged = operator(store).purgeSent(recent.createdAt(), "cli-user", now());

            assertThat(purged).isEqualTo(1);
            assertThat(store.find(old.id())).isEmpty();
            assertThat(operator(store).attempts(old.id())).isEmpty();
            assertThat(store.find(dead.id())).isPresent();
            assertThat(store.find(recent.id())).isPresent();
            assertThat(operator(store).auditTrail(OptionalLong.empty(), 10))
                    .singleElement()
                    .satisfies(entry -> {
                        assertThat(entry.action()).isEqualTo(AuditEntry.PURGE);
                        assertThat(entry.actor()).isEqualTo("cli-user");
                        assertThat(entry.affected()).isEqualTo(1);
                        assertThat(entry.selection()).startsWith("status=sent");
                    });
        }

        @Test
        @DisplayName("edit and requeue replaces payload and headers, sends the event again, and keeps the "
                + "original in the audit trail")
        void editAndRequeue() {
            OutboxStore store = store(Ordering.none());
            List<OutboxEvent> e = fiveDeadLetters(store);
            OperatorStore operator = operator(store);
            byte[] fixed = "{\"fixed\":true}".getBytes(StandardCharsets.UTF_8);

            Optional<OutboxEvent> edited = operator.editAndRequeue(
                    e.get(0).id(), new EventEdit(fixed, Map.of("tenant", "globex")), "carol", now());

            assertThat(edited).isPresent();
            OutboxEvent back = store.find(e.get(0).id()).orElseThrow();
            assertThat(back.payload()).isEqualTo(fixed);
            assertThat(back.headers()).isEqualTo(Map.of("tenant", "globex"));
            assertThat(back.status()).isEqualTo(EventStatus.PENDING);
            assertThat(back.attempts()).isZero();
            AuditEntry entry = operator.auditTrail(OptionalLong.empty(), 10).get(0);
            assertThat(entry.action()).isEqualTo(AuditEntry.EDIT_REQUEUE);
            assertThat(entry.eventId()).contains(e.get(0).id());
            assertThat(entry.originalPayload())
                    .hasValueSatisfying(p -> assertThat(p).isEqualTo(e.get(0).payload()));
            assertThat(entry.originalHeaders()).isEqualTo(Map.of("tenant", "acme"));
            // and the relay takes it with its new payload
            List<OutboxEvent> leased = store.lease(UUID.randomUUID(), 10, now());
            assertThat(leased)
                    .singleElement()
                    .satisfies(l -> assertThat(l.payload()).isEqualTo(fixed));
        }

        @Test
        @DisplayName("an edit of an event that is not a dead letter changes nothing and records nothing")
        void editOfNonDeadLetter() {
            OutboxStore store = store(Ordering.none());
            OutboxEvent pending = event("order.placed", "orders", null);
            append(store, List.of(pending));
            OperatorStore operator = operator(store);

            assertThat(operator.editAndRequeue(pending.id(), new EventEdit(new byte[] {1}, Map.of()), "dave", now()))
                    .isEmpty();
            assertThat(operator.editAndRequeue(
                            UUID.randomUUID(), new EventEdit(new byte[] {1}, Map.of()), "dave", now()))
                    .isEmpty();
            assertThat(store.find(pending.id()).orElseThrow().payload()).isEqualTo(pending.payload());
            assertThat(operator.auditTrail(OptionalLong.empty(), 10)).isEmpty();
        }

        @Test
        @DisplayName("an oversized edit or a reserved header is refused before anything changes")
        void invalidEdit() {
            OutboxStore store = store(Ordering.none());
            List<OutboxEvent> e = fiveDeadLetters(store);
            OperatorStore operator = operator(store);

            assertThatThrownBy(() -> operator.editAndRequeue(
                            e.get(0).id(),
                            new EventEdit(new byte[OutboxEvent.DEFAULT_MAX_PAYLOAD_BYTES + 1], Map.of()),
                            "eve",
                            now()))
                    .isInstanceOf(InvalidEventException.class)
                    .hasMessageContaining("payload");
            assertThatThrownBy(() -> operator.editAndRequeue(
                            e.get(0).id(), new EventEdit(new byte[] {1}, Map.of("ce_id", "forged")), "eve", now()))
                    .isInstanceOf(InvalidEventException.class);
            assertThat(store.find(e.get(0).id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
            assertThat(operator.auditTrail(OptionalLong.empty(), 10)).isEmpty();
        }

        @Test
        @DisplayName("the audit trail pages newest first")
        void auditPages() {
            OutboxStore store = store(Ordering.none());
            fiveDeadLetters(store);
            OperatorStore operator = operator(store);
            for (int i = 0; i < 3; i++) {
                operator.requeueDeadLetters(DeadLetterFilter.any().withType("t" + i), "op" + i, now());
            }

            List<AuditEntry> newest = operator.auditTrail(OptionalLong.empty(), 2);
            List<AuditEntry> older =
                    operator.auditTrail(OptionalLong.of(newest.get(1).id()), 2);

            assertThat(newest).extracting(AuditEntry::actor).containsExactly("op2", "op1");
            assertThat(older).extracting(AuditEntry::actor).containsExactly("op0");
        }
    }

    @Nested
    @DisplayName("what is stuck")
    class Stuck {

        @Test
        @DisplayName("a key whose later events wait behind a dead letter or a retrying event is held, with "
                + "that event; a key with nothing behind its failure is not")
        void heldKeys() {
            OutboxStore store = store(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY));
            OutboxEvent dead = event("order.placed", "orders", "held-by-dead");
            OutboxEvent retrying = event("order.placed", "orders", "held-by-retry");
            OutboxEvent alone = event("order.placed", "orders", "alone");
            append(store, List.of(dead, retrying, alone));
            UUID lease = UUID.randomUUID();
            assertThat(store.lease(lease, 10, now())).hasSize(3);
            store.markDeadLettered(
                    lease,
                    List.of(new DeadLetterMark(dead.id(), "boom"), new DeadLetterMark(alone.id(), "boom")),
                    now());
            store.markRetry(lease, List.of(new RetryMark(retrying.id(), "later", now().plusSeconds(60))), now());
            append(
                    store,
                    List.of(
                            event("order.paid", "orders", "held-by-dead"),
                            event("order.shipped", "orders", "held-by-dead"),
                            event("order.paid", "orders", "held-by-retry")));

            List<HeldKey> held = operator(store).heldKeys(10);

            assertThat(held).extracting(HeldKey::key).containsExactly("held-by-dead", "held-by-retry");
            assertThat(held.get(0).holder().id()).isEqualTo(dead.id());
            assertThat(held.get(0).waiting()).isEqualTo(2);
            assertThat(held.get(1).holder().id()).isEqualTo(retrying.id());
            assertThat(held.get(1).waiting()).isEqualTo(1);
        }

        @Test
        @DisplayName("without per-key ordering no key is held")
        void noHeldKeysUnordered() {
            OutboxStore store = store(Ordering.none());
            fiveDeadLetters(store);
            append(store, List.of(event("order.placed", "orders", "k1")));

            assertThat(operator(store).heldKeys(10)).isEmpty();
        }

        @Test
        @DisplayName("the unfinished events are counted per destination, and the leases held now are listed")
        void destinationsAndLeases() {
            OutboxStore store = store(Ordering.none());
            fiveDeadLetters(store);
            append(store, List.of(event("a", "orders", null), event("b", "orders", null), event("c", "audit", null)));
            UUID lease = UUID.randomUUID();
            assertThat(store.lease(lease, 1, now())).hasSize(1);

            List<DestinationCounts> counts = operator(store).countByDestination(10);
            List<ActiveLease> leases = operator(store).activeLeases(10);

            assertThat(counts)
                    .containsExactly(
                            new DestinationCounts("orders", 1, 1, 3),
                            new DestinationCounts("billing", 0, 0, 2),
                            new DestinationCounts("audit", 1, 0, 0));
            assertThat(leases).containsExactly(new ActiveLease(lease, 1, now()));
        }
    }

    @Nested
    @DisplayName("attempt history")
    class AttemptHistory {

        /** Leases the one due event and marks it for a retry a minute later; returns the lease. */
        private UUID failAndRetry(OutboxStore store, UUID eventId, String error) {
            UUID lease = UUID.randomUUID();
            assertThat(store.lease(lease, 1, now())).extracting(OutboxEvent::id).containsExactly(eventId);
            assertThat(store.markRetry(lease, List.of(new RetryMark(eventId, error, now().plusSeconds(60))), now())
                            .marked())
                    .containsExactly(eventId);
            clock.advance(Duration.ofMinutes(1));
            return lease;
        }

        private UUID failForGood(OutboxStore store, UUID eventId, String error) {
            UUID lease = UUID.randomUUID();
            assertThat(store.lease(lease, 1, now())).extracting(OutboxEvent::id).containsExactly(eventId);
            assertThat(store.markDeadLettered(lease, List.of(new DeadLetterMark(eventId, error)), now())
                            .marked())
                    .containsExactly(eventId);
            return lease;
        }

        @Test
        @DisplayName("every failed attempt is kept with its number, time, outcome, error and lease, oldest first")
        void everyAttempt() {
            OutboxStore store = store(Ordering.none());
            OutboxEvent failing = event("order.placed", "orders", "k1");
            OutboxEvent other = event("order.paid", "orders", "k2");
            append(store, List.of(failing));
            Instant first = now();
            UUID lease1 = failAndRetry(store, failing.id(), "TimeoutException: no ack");
            Instant second = now();
            UUID lease2 = failAndRetry(store, failing.id(), "NO_ROUTE: unroutable");
            Instant third = now();
            UUID lease3 = failForGood(store, failing.id(), "RecordTooLargeException: 2 MB");
            append(store, List.of(other));

            assertThat(operator(store).attempts(failing.id()))
                    .containsExactly(
                            new Attempt(
                                    failing.id(), 1, first, Attempt.Outcome.RETRY, "TimeoutException: no ack", lease1),
                            new Attempt(failing.id(), 2, second, Attempt.Outcome.RETRY, "NO_ROUTE: unroutable", lease2),
                            new Attempt(
                                    failing.id(),
                                    3,
                                    third,
                                    Attempt.Outcome.DEAD_LETTER,
                                    "RecordTooLargeException: 2 MB",
                                    lease3));
            assertThat(operator(store).attempts(other.id())).isEmpty();
            assertThat(operator(store).attempts(UUID.randomUUID())).isEmpty();
        }

        @Test
        @DisplayName("a mark under a lost lease records no attempt; a requeued event's new attempts count from 1")
        void lostLeaseAndRequeue() {
            OutboxStore store = store(Ordering.none());
            OutboxEvent event = event("order.placed", "orders", null);
            append(store, List.of(event));
            store.lease(UUID.randomUUID(), 1, now());
            assertThat(store.markDeadLettered(UUID.randomUUID(), List.of(new DeadLetterMark(event.id(), "late")), now())
                            .leaseLost())
                    .containsExactly(event.id());
            assertThat(operator(store).attempts(event.id())).isEmpty();

            store.sweepExpiredLeases(now().plusSeconds(1), 10);
            failForGood(store, event.id(), "first life");
            operator(store).requeueDeadLetters(DeadLetterFilter.any(), "alice", now());
            failForGood(store, event.id(), "second life");

            assertThat(operator(store).attempts(event.id()))
                    .extracting(Attempt::number, Attempt::error)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(1, "first life"),
                            org.assertj.core.groups.Tuple.tuple(1, "second life"));
        }

        @Test
        @DisplayName("attempts go with their event: purge of dead letters, purge by age, cleanup of sent events")
        void goWithTheirEvent() {
            OutboxStore store = store(Ordering.none());
            OutboxEvent purgedByFilter = event("order.placed", "orders", null);
            OutboxEvent purgedByAge = event("order.paid", "orders", null);
            OutboxEvent sent = event("order.shipped", "orders", null);
            clock.advance(Duration.ofMinutes(1));
            OutboxEvent kept = event("order.placed", "billing", null);
            append(store, List.of(purgedByFilter, purgedByAge, sent, kept));
            failForGood(store, purgedByFilter.id(), "a");
            failForGood(store, purgedByAge.id(), "b");
            failAndRetry(store, sent.id(), "c");
            UUID lease = UUID.randomUUID();
            assertThat(store.lease(lease, 1, now())).extracting(OutboxEvent::id).containsExactly(sent.id());
            store.markPublished(lease, List.of(sent.id()), now());
            failForGood(store, kept.id(), "d");

            operator(store)
                    .purgeDeadLetters(
                            DeadLetterFilter.any().withType("order.placed").withDestination("orders"), "bob", now());
            assertThat(operator(store).attempts(purgedByFilter.id())).isEmpty();
            assertThat(operator(store)
                            .purgeDeadLetters(
                                    DeadLetterFilter.any()
                                            .withCreated(
                                                    Optional.empty(),
                                                    Optional.of(purgedByAge
                                                            .createdAt()
                                                            .plusMillis(1))),
                                    "bob",
                                    now()))
                    .isEqualTo(1);
            assertThat(operator(store).attempts(purgedByAge.id())).isEmpty();
            assertThat(operator(store).attempts(sent.id())).hasSize(1);
            if (cleansUpRowByRow()) {
                assertThat(store.cleanUp(now().plusSeconds(1), 10)).isEqualTo(1);
                assertThat(operator(store).attempts(sent.id())).isEmpty();
            } else {
                store.cleanUp(now().plusSeconds(1), 10);
            }

            assertThat(operator(store).attempts(kept.id()))
                    .extracting(Attempt::error)
                    .containsExactly("d");
        }
    }

    @Nested
    @DisplayName("why: causes, filters by part, values, retry and dead-letter now, what the audit keeps")
    class Why {

        /** Appends one event and dead-letters it with {@code error} now, then a minute passes. */
        private OutboxEvent deadLetterOne(
                OutboxStore store, String type, String destination, String key, String error) {
            OutboxEvent event = event(type, destination, key);
            deadLetter(store, List.of(event), List.of(error));
            clock.advance(Duration.ofMinutes(1));
            return event;
        }

        /** Appends one event and fails it once, its retry due {@code retryIn} from now. */
        private OutboxEvent retrying(OutboxStore store, String type, String key, String error, Duration retryIn) {
            OutboxEvent event = event(type, "orders", key);
            append(store, List.of(event));
            UUID lease = UUID.randomUUID();
            assertThat(store.lease(lease, 10, now()))
                    .extracting(OutboxEvent::id)
                    .contains(event.id());
            assertThat(store.markRetry(lease, List.of(new RetryMark(event.id(), error, now().plus(retryIn))), now())
                            .marked())
                    .containsExactly(event.id());
            return event;
        }

        @Test
        @DisplayName("dead letters and retrying events are grouped by cause, destination and type, dead letters "
                + "first, largest first, errors differing only by numbers of four or more digits or UUIDs in one group, with first and "
                + "last seen")
        void failureGroups() {
            OutboxStore store = store(Ordering.none());
            Instant firstRoute = now();
            OutboxEvent route1 =
                    deadLetterOne(store, "order.placed", "orders", null, "NO_ROUTE: exchange orders-7001 has no queue");
            deadLetterOne(store, "order.placed", "orders", null, "NO_ROUTE: exchange orders-1200 has no queue");
            Instant lastRoute = now();
            deadLetterOne(store, "order.placed", "orders", null, "NO_ROUTE: exchange orders-3333 has no queue");
            deadLetterOne(
                    store, "order.placed", "orders", null, "Timeout for " + UUID.randomUUID() + " after 30000 ms");
            deadLetterOne(store, "order.placed", "orders", null, "Timeout for " + UUID.randomUUID() + " after 5000 ms");
            deadLetterOne(store, "order.paid", "billing", null, "RecordTooLargeException: 2097152 bytes\n\tat x");
            retrying(store, "order.placed", null, "broker down, delivery 10293", Duration.ofHours(1));
            retrying(store, "order.placed", null, "broker down, delivery 10294", Duration.ofHours(1));
            append(store, List.of(event("order.placed", "orders", null))); // pending, never failed: in no group
            OperatorStore operator = operator(store);

            List<FailureGroup> groups = operator.failureGroups(10);

            assertThat(groups)
                    .extracting(
                            FailureGroup::kind,
                            FailureGroup::cause,
                            FailureGroup::destination,
                            FailureGroup::type,
                            FailureGroup::count)
                    .containsExactly(
                            tuple(
                                    FailureGroup.Kind.DEAD_LETTER,
                                    "NO_ROUTE: exchange orders-# has no queue",
                                    "orders",
                                    "order.placed",
                                    3L),
                            tuple(
                                    FailureGroup.Kind.DEAD_LETTER,
                                    "Timeout for * after # ms",
                                    "orders",
                                    "order.placed",
                                    2L),
                            tuple(
                                    FailureGroup.Kind.DEAD_LETTER,
                                    "RecordTooLargeException: # bytes",
                                    "billing",
                                    "order.paid",
                                    1L),
                            tuple(FailureGroup.Kind.RETRYING, "broker down, delivery #", "orders", "order.placed", 2L));
            FailureGroup routes = groups.get(0);
            assertThat(routes.example())
                    .isIn(
                            "NO_ROUTE: exchange orders-7001 has no queue",
                            "NO_ROUTE: exchange orders-1200 has no queue",
                            "NO_ROUTE: exchange orders-3333 has no queue");
            assertThat(routes.firstSeen()).isEqualTo(firstRoute);
            assertThat(routes.lastSeen()).isEqualTo(lastRoute);
            assertThat(groups.get(2).example()).isEqualTo("RecordTooLargeException: 2097152 bytes\n\tat x");
            assertThat(operator.failureGroups(2)).containsExactlyElementsOf(groups.subList(0, 2));
            // a group's filter finds its dead letters, and only them
            assertThat(operator.countDeadLetters(routes.deadLetters())).isEqualTo(3);
            assertThat(ids(operator.findDeadLetters(routes.deadLetters(), OptionalLong.empty(), 10)))
                    .startsWith(route1.id())
                    .hasSize(3);
            assertThat(operator.countDeadLetters(groups.get(1).deadLetters())).isEqualTo(2);
        }

        @Test
        @DisplayName("the store's cause is ErrorCause.of of the last error, for multi-line, upper-case UUID, "
                + "digit, long and non-ASCII errors, and the cause filter finds exactly its dead letter")
        void causeAsErrorCause() {
            OutboxStore store = store(Ordering.none());
            List<String> errors = List.of(
                    "first line 42\nsecond line 7",
                    "windows line\r\nnext",
                    "Failed for 3F2504E0-4F89-11D3-9A0C-0305E82C3301 and 3f2504e0-4f89-11d3-9a0c-0305e82c3301x9",
                    "not a uuid 3F2504E0-4F89-11D3-9A0C-0305E82C330 v1.2.3",
                    "x".repeat(150) + " 12345 " + "é".repeat(100),
                    "Fehler: Größe überschritten ☃ " + "😀".repeat(250),
                    "a".repeat(199) + "😀😀😀");
            List<OutboxEvent> events = new ArrayList<>();
            for (int i = 0; i < errors.size(); i++) {
                events.add(event("type." + i, "orders", null));
            }
            deadLetter(store, events, errors);
            OperatorStore operator = operator(store);

            List<FailureGroup> groups = operator.failureGroups(100);

            assertThat(groups).hasSize(errors.size());
            for (int i = 0; i < errors.size(); i++) {
                String type = "type." + i;
                String error = errors.get(i);
                String expected = ErrorCause.of(error);
                assertThat(groups)
                        .filteredOn(group -> group.type().equals(type))
                        .singleElement()
                        .satisfies(group -> {
                            assertThat(group.cause()).isEqualTo(expected);
                            assertThat(group.example()).isEqualTo(error);
                        });
                assertThat(ids(operator.findDeadLetters(
                                DeadLetterFilter.any().withCause(expected), OptionalLong.empty(), 10)))
                        .as("cause filter %s", expected)
                        .containsExactly(events.get(i).id());
            }
        }

        @Test
        @DisplayName(
                "contains filters (same case) and the cause filter are honoured by count, find, requeue " + "and purge")
        void containsAndCauseFilters() {
            OutboxStore store = store(Ordering.none());
            OutboxEvent placed =
                    deadLetterOne(store, "order.placed", "orders-eu", "customer-1", "NO_ROUTE: queue 1001");
            OutboxEvent paid = deadLetterOne(store, "order.paid", "orders-us", "customer-22", "NO_ROUTE: queue 2002");
            OutboxEvent invoice = deadLetterOne(store, "invoice.sent", "billing", "customer-1", "Timeout 3003");
            OutboxEvent reorder = deadLetterOne(store, "reorder.placed", "orders-eu", null, "NO_ROUTE: queue 4004");
            OperatorStore operator = operator(store);
            DeadLetterFilter contains = DeadLetterFilter.any().withMatch(DeadLetterFilter.TextMatch.CONTAINS);

            assertThat(operator.countDeadLetters(contains.withType("order."))).isEqualTo(3);
            assertThat(operator.countDeadLetters(DeadLetterFilter.any().withType("order.")))
                    .isZero();
            assertThat(operator.countDeadLetters(contains.withType("ORDER."))).isZero();
            assertThat(ids(operator.findDeadLetters(contains.withType("placed"), OptionalLong.empty(), 10)))
                    .containsExactly(placed.id(), reorder.id());
            assertThat(ids(operator.findDeadLetters(contains.withDestination("orders-"), OptionalLong.empty(), 10)))
                    .containsExactly(placed.id(), paid.id(), reorder.id());
            assertThat(ids(operator.findDeadLetters(contains.withKey("customer-2"), OptionalLong.empty(), 10)))
                    .containsExactly(paid.id());
            assertThat(ids(operator.findDeadLetters(contains.withKey("customer-1"), OptionalLong.empty(), 10)))
                    .containsExactly(placed.id(), invoice.id());
            DeadLetterFilter routes = DeadLetterFilter.any().withCause("NO_ROUTE: queue #");
            assertThat(operator.countDeadLetters(routes)).isEqualTo(3);
            assertThat(operator.countDeadLetters(routes.withMatch(DeadLetterFilter.TextMatch.CONTAINS)
                            .withDestination("-eu")))
                    .isEqualTo(2);

            assertThat(operator.requeueDeadLetters(contains.withType("order.").withDestination("-us"), "alice", now()))
                    .isEqualTo(1);
            assertThat(store.find(paid.id()).orElseThrow().status()).isEqualTo(EventStatus.PENDING);
            assertThat(operator.purgeDeadLetters(routes, "bob", now())).isEqualTo(2);
            assertThat(store.find(placed.id())).isEmpty();
            assertThat(store.find(reorder.id())).isEmpty();
            assertThat(store.find(invoice.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
            assertThat(operator.auditTrail(OptionalLong.empty(), 10))
                    .extracting(AuditEntry::action, AuditEntry::affected, AuditEntry::selection)
                    .containsExactly(
                            tuple(AuditEntry.PURGE, 2L, "cause=NO_ROUTE: queue #"),
                            tuple(AuditEntry.REQUEUE, 1L, "destination~-us, type~order."));
        }

        @Test
        @DisplayName("the values of a field among the dead letters: distinct, in code point order, containing "
                + "the text (same case), at most the limit")
        void values() {
            OutboxStore store = store(Ordering.none());
            deadLetterOne(store, "order.placed", "orders", "k2", "e");
            deadLetterOne(store, "order.paid", "orders", "k1", "e");
            deadLetterOne(store, "order.placed", "billing", null, "e");
            deadLetterOne(store, "Order.placed", "billing", "k1", "e");
            append(store, List.of(event("order.shipped", "shipping", "k9"))); // pending: not a dead letter
            OperatorStore operator = operator(store);

            assertThat(operator.deadLetterValues(DeadLetterFilter.Field.TYPE, "", 10))
                    .containsExactly("Order.placed", "order.paid", "order.placed");
            assertThat(operator.deadLetterValues(DeadLetterFilter.Field.TYPE, "order", 10))
                    .containsExactly("order.paid", "order.placed");
            assertThat(operator.deadLetterValues(DeadLetterFilter.Field.TYPE, "", 2))
                    .containsExactly("Order.placed", "order.paid");
            assertThat(operator.deadLetterValues(DeadLetterFilter.Field.DESTINATION, "", 10))
                    .containsExactly("billing", "orders");
            assertThat(operator.deadLetterValues(DeadLetterFilter.Field.KEY, "", 10))
                    .containsExactly("k1", "k2");
            assertThat(operator.deadLetterValues(DeadLetterFilter.Field.KEY, "9", 10))
                    .isEmpty();
        }

        @Test
        @DisplayName("dead-lettered at is the latest dead-letter attempt of current dead letters only")
        void deadLetteredAt() {
            OutboxStore store = store(Ordering.none());
            Instant firstAt = now();
            OutboxEvent first = deadLetterOne(store, "order.placed", "orders", null, "a");
            Instant secondAt = now();
            OutboxEvent second = deadLetterOne(store, "order.paid", "orders", null, "b");
            OutboxEvent requeued = deadLetterOne(store, "order.shipped", "orders", null, "c");
            OperatorStore operator = operator(store);
            operator.requeueDeadLetters(DeadLetterFilter.any().withType("order.shipped"), "alice", now());
            OutboxEvent pending = event("order.placed", "orders", null);
            append(store, List.of(pending));

            assertThat(operator.deadLetteredAt(
                            Set.of(first.id(), second.id(), requeued.id(), pending.id(), UUID.randomUUID())))
                    .isEqualTo(Map.of(first.id(), firstAt, second.id(), secondAt));
            assertThat(operator.deadLetteredAt(Set.of())).isEmpty();

            // dead-lettered again later: the latest time
            deadLetterAgain(store, requeued.id(), "d");
            assertThat(operator.deadLetteredAt(Set.of(requeued.id()))).isEqualTo(Map.of(requeued.id(), now()));
        }

        /** Leases the (requeued, due) event and dead-letters it again now. */
        private void deadLetterAgain(OutboxStore store, UUID eventId, String error) {
            clock.advance(Duration.ofMinutes(1));
            UUID lease = UUID.randomUUID();
            assertThat(store.lease(lease, 10, now()))
                    .extracting(OutboxEvent::id)
                    .contains(eventId);
            store.markDeadLettered(lease, List.of(new DeadLetterMark(eventId, error)), now());
        }

        @Test
        @DisplayName("retry now makes only the retrying events due now, attempts and error kept, and records "
                + "the ids it changed")
        void retryNow() {
            OutboxStore store = store(Ordering.none());
            OutboxEvent dead = deadLetterOne(store, "order.paid", "orders", null, "no");
            OutboxEvent waiting = retrying(store, "order.placed", null, "503 down", Duration.ofHours(1));
            OutboxEvent fresh = event("order.placed", "orders", null);
            append(store, List.of(fresh));
            OperatorStore operator = operator(store);
            clock.advance(Duration.ofMinutes(1));

            assertThat(operator.retryNow(Set.of(waiting.id(), fresh.id(), dead.id()), "alice", now()))
                    .isEqualTo(1);

            OutboxEvent due = store.find(waiting.id()).orElseThrow();
            assertThat(due.status()).isEqualTo(EventStatus.PENDING);
            assertThat(due.nextAttemptAt()).isEqualTo(now());
            assertThat(due.attempts()).isEqualTo(1);
            assertThat(due.lastError()).contains("503 down");
            assertThat(store.find(dead.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
            assertThat(store.lease(UUID.randomUUID(), 10, now()))
                    .extracting(OutboxEvent::id)
                    .containsExactlyInAnyOrder(waiting.id(), fresh.id());
            AuditEntry entry = operator.auditTrail(OptionalLong.empty(), 1).get(0);
            assertThat(entry.action()).isEqualTo(AuditEntry.RETRY_NOW);
            assertThat(entry.actor()).isEqualTo("alice");
            assertThat(entry.affected()).isEqualTo(1);
            assertThat(entry.eventIds()).containsExactly(waiting.id());
            assertThat(entry.at()).isEqualTo(now());
            assertThat(operator.retryNow(Set.of(), "alice", now())).isZero();
            assertThat(operator.deadLetterNow(Set.of(), "alice", now())).isZero();
            assertThat(operator.auditTrail(OptionalLong.empty(), 10))
                    .as("nothing named, nothing audited")
                    .hasSize(1);
        }

        @Test
        @DisplayName("dead-letter now turns only retrying events into dead letters, error and attempts kept, "
                + "records the operator's attempt and the ids; an event in flight is left alone")
        void deadLetterNow() {
            OutboxStore store = store(Ordering.none());
            OutboxEvent waiting = retrying(store, "order.placed", null, "503 down", Duration.ofHours(1));
            OutboxEvent again = retrying(store, "order.paid", null, "504 down", Duration.ZERO);
            UUID inFlightLease = UUID.randomUUID();
            assertThat(store.lease(inFlightLease, 10, now()))
                    .extracting(OutboxEvent::id)
                    .containsExactly(again.id());
            OutboxEvent fresh = event("order.placed", "orders", null);
            append(store, List.of(fresh));
            clock.advance(Duration.ofMinutes(1));
            OperatorStore operator = operator(store);

            assertThat(operator.deadLetterNow(Set.of(waiting.id(), again.id(), fresh.id()), "bob", now()))
                    .isEqualTo(1);

            OutboxEvent dead = store.find(waiting.id()).orElseThrow();
            assertThat(dead.status()).isEqualTo(EventStatus.FAILED);
            assertThat(dead.attempts()).isEqualTo(1);
            assertThat(dead.lastError()).contains("503 down");
            assertThat(operator.attempts(waiting.id()))
                    .last()
                    .isEqualTo(new Attempt(
                            waiting.id(),
                            1,
                            now(),
                            Attempt.Outcome.DEAD_LETTER,
                            "503 down",
                            new UUID(0, 0),
                            Optional.of(DeadLetterReason.operator().describe())));
            assertThat(operator.deadLetteredAt(Set.of(waiting.id()))).isEqualTo(Map.of(waiting.id(), now()));
            assertThat(store.find(again.id()).orElseThrow().status()).isEqualTo(EventStatus.IN_FLIGHT);
            assertThat(store.markPublished(inFlightLease, List.of(again.id()), now())
                            .marked())
                    .containsExactly(again.id());
            assertThat(store.find(fresh.id()).orElseThrow().status()).isEqualTo(EventStatus.PENDING);
            assertThat(operator.countDeadLetters(DeadLetterFilter.any().withCause("503 down")))
                    .isEqualTo(1);
            AuditEntry entry = operator.auditTrail(OptionalLong.empty(), 1).get(0);
            assertThat(entry.action()).isEqualTo(AuditEntry.DEAD_LETTER);
            assertThat(entry.actor()).isEqualTo("bob");
            assertThat(entry.affected()).isEqualTo(1);
            assertThat(entry.eventIds()).containsExactly(waiting.id());
            // a dead letter again: requeue brings it back
            assertThat(operator.requeueDeadLetters(DeadLetterFilter.ids(Set.of(waiting.id())), "bob", now()))
                    .isEqualTo(1);
        }

        @Test
        @DisplayName("a retrying event dead-lettered now holds its key when the ordering says so")
        void deadLetterNowHoldsKey() {
            OutboxStore store = store(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY));
            OutboxEvent first = retrying(store, "order.placed", "k1", "503 down", Duration.ofMinutes(5));
            OutboxEvent behind = event("order.paid", "orders", "k1");
            OutboxEvent other = event("order.paid", "orders", "k2");
            append(store, List.of(behind, other));

            assertThat(operator(store).deadLetterNow(Set.of(first.id()), "bob", now()))
                    .isEqualTo(1);
            clock.advance(Duration.ofMinutes(10));

            assertThat(store.lease(UUID.randomUUID(), 10, now()))
                    .extracting(OutboxEvent::id)
                    .containsExactly(other.id());
            assertThat(operator(store).heldKeys(10))
                    .singleElement()
                    .satisfies(held -> assertThat(held.holder().id()).isEqualTo(first.id()));
        }

        @Test
        @DisplayName("the audit keeps an edit's new payload and headers beside the originals, and the ids a "
                + "requeue or purge changed, in sequence order")
        void auditContent() {
            OutboxStore store = store(Ordering.none());
            List<OutboxEvent> e = fiveDeadLetters(store);
            OperatorStore operator = operator(store);
            byte[] fixed = "{\"fixed\":true}".getBytes(StandardCharsets.UTF_8);

            operator.editAndRequeue(e.get(0).id(), new EventEdit(fixed, Map.of("tenant", "globex")), "carol", now());
            AuditEntry edit = operator.auditTrail(OptionalLong.empty(), 1).get(0);
            assertThat(edit.originalPayload())
                    .hasValueSatisfying(p -> assertThat(p).isEqualTo(e.get(0).payload()));
            assertThat(edit.originalHeaders()).isEqualTo(Map.of("tenant", "acme"));
            assertThat(edit.newPayload()).hasValueSatisfying(p -> assertThat(p).isEqualTo(fixed));
            assertThat(edit.newHeaders()).isEqualTo(Map.of("tenant", "globex"));

            assertThat(operator.requeueDeadLetters(DeadLetterFilter.any().withDestination("billing"), "dave", now()))
                    .isEqualTo(2);
            AuditEntry requeue = operator.auditTrail(OptionalLong.empty(), 1).get(0);
            assertThat(requeue.eventIds())
                    .containsExactly(e.get(2).id(), e.get(3).id());
            assertThat(requeue.newPayload()).isEmpty();
            assertThat(requeue.newHeaders()).isEmpty();

            assertThat(operator.purgeDeadLetters(DeadLetterFilter.any(), "erin", now()))
                    .isEqualTo(2);
            AuditEntry purge = operator.auditTrail(OptionalLong.empty(), 1).get(0);
            assertThat(purge.action()).isEqualTo(AuditEntry.PURGE);
            assertThat(purge.eventIds()).containsExactly(e.get(1).id(), e.get(4).id());

            assertThat(operator.purgeDeadLetters(DeadLetterFilter.any(), "erin", now()))
                    .isZero();
            assertThat(operator.auditTrail(OptionalLong.empty(), 1).get(0).eventIds())
                    .isEmpty();
        }

        @Test
        @DisplayName("a dead letter's last attempt keeps which rule stopped it, when the mark says; retries "
                + "and marks without a reason keep none")
        void stoppedBy() {
            OutboxStore store = store(Ordering.none());
            OutboxEvent unroutable = retrying(store, "order.placed", null, "NO_ROUTE: x", Duration.ZERO);
            OutboxEvent plain = event("order.paid", "orders", null);
            append(store, List.of(plain));
            UUID lease = UUID.randomUUID();
            assertThat(store.lease(lease, 10, now())).hasSize(2);
            DeadLetterReason budget = new DeadLetterReason(DeadLetterReason.Kind.UNROUTABLE_BUDGET, 3);
            store.markDeadLettered(
                    lease,
                    List.of(
                            new DeadLetterMark(unroutable.id(), "NO_ROUTE: x", Optional.of(budget)),
                            new DeadLetterMark(plain.id(), "too large")),
                    now());

            assertThat(operator(store).attempts(unroutable.id()))
                    .extracting(Attempt::outcome, Attempt::stoppedBy)
                    .containsExactly(
                            tuple(Attempt.Outcome.RETRY, Optional.empty()),
                            tuple(Attempt.Outcome.DEAD_LETTER, Optional.of(budget.describe())));
            assertThat(operator(store).attempts(plain.id()))
                    .singleElement()
                    .satisfies(attempt -> assertThat(attempt.stoppedBy()).isEmpty());
        }
    }
}
