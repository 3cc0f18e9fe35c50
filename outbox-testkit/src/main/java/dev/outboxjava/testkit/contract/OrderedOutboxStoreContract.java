package dev.outboxjava.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.OperatorStore;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.core.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
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

    /**
     * A producer's transaction on the store, which serializes the writers of a key the way a service locks
     * an aggregate's row before it appends the aggregate's event.
     */
    public interface ProducerTransaction {

        /**
         * Locks the key's aggregate until this transaction ends, waiting while another transaction holds it,
         * and counts this transaction as one more writer of the key.
         *
         * @return how many transactions have locked the key so far, this one included: the key's write order
         */
        long lock(String key);

        /** Appends events in this transaction. */
        void append(List<OutboxEvent> events);

        /** Commits, releasing the transaction's locks. */
        void commit();
    }

    /**
     * Begins a producer transaction. The default buffers the appends and passes them to
     * {@link #append(OutboxStore, List)} at commit, under a lock per key held from {@link
     * ProducerTransaction#lock} until then: right for a store whose appends are atomic at once. A store whose
     * writers take their order from a real database transaction overrides it, so that the transaction starts
     * (and takes its locks and ids) where the test says.
     */
    protected ProducerTransaction begin(OutboxStore store) {
        return new LockingTransaction(store);
    }

    private final Map<String, ReentrantLock> keyLocks = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> keyWriters = new ConcurrentHashMap<>();

    /** {@link #begin}'s default: a lock per key held until commit, the appends made at commit. */
    private final class LockingTransaction implements ProducerTransaction {

        private final OutboxStore store;
        private final List<ReentrantLock> held = new ArrayList<>();
        private final List<OutboxEvent> appended = new ArrayList<>();

        LockingTransaction(OutboxStore store) {
            this.store = store;
        }

        @Override
        public long lock(String key) {
            ReentrantLock lock = keyLocks.computeIfAbsent(key, k -> new ReentrantLock());
            lock.lock();
            held.add(lock);
            return keyWriters.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
        }

        @Override
        public void append(List<OutboxEvent> events) {
            appended.addAll(events);
        }

        @Override
        public void commit() {
            try {
                OrderedOutboxStoreContract.this.append(store, List.copyOf(appended));
            } finally {
                held.forEach(ReentrantLock::unlock);
                held.clear();
            }
        }
    }

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
    @DisplayName("per-key order is append order, for every writer")
    class AppendOrder {

        @Test
        @DisplayName("a transaction that locked another aggregate first comes after the earlier writer of a key")
        void writerThatLockedAnotherAggregateFirst() {
            OutboxStore store = store(Ordering.AfterDeadLetter.HOLD_KEY);
            ProducerTransaction b = begin(store);
            b.lock("key-a");
            ProducerTransaction a = begin(store);
            a.lock("key-b");
            OutboxEvent b1 = event("key-b", 1);
            a.append(List.of(b1));
            a.commit();
            b.lock("key-b");
            OutboxEvent a1 = event("key-a", 1);
            OutboxEvent b2 = event("key-b", 2);
            b.append(List.of(a1, b2));
            b.commit();

            assertThat(drain(store, 1))
                    .as("key-b's events in the order they were appended, one lease each")
                    .filteredOn(e -> e.key().orElseThrow().equals("key-b"))
                    .extracting(OutboxEvent::id)
                    .containsExactly(b1.id(), b2.id());
        }

        @Test
        @DisplayName(
                "writers locking one to three aggregates in key order: every key in its write order, in small leases")
        void randomizedMultiKeyProducers() throws Exception {
            OutboxStore store = store(Ordering.AfterDeadLetter.HOLD_KEY);
            int producers = 4;
            int transactionsEach = 60;
            List<String> keys = new ArrayList<>();
            for (int k = 0; k < 12; k++) {
                keys.add("account-" + (char) ('a' + k));
            }
            ExecutorService pool = Executors.newFixedThreadPool(producers);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int p = 0; p < producers; p++) {
                    long seed = 31L * p + 7;
                    done.add(pool.submit(() -> {
                        Random random = new Random(seed);
                        for (int t = 0; t < transactionsEach; t++) {
                            List<String> touched = new ArrayList<>(keys);
                            Collections.shuffle(touched, random);
                            touched = new ArrayList<>(touched.subList(0, 1 + random.nextInt(3)));
                            Collections.sort(touched);
                            ProducerTransaction tx = begin(store);
                            for (String key : touched) {
                                long version = tx.lock(key);
                                tx.append(List.of(event(key, (int) version)));
                            }
                            tx.commit();
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(2, java.util.concurrent.TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }

            List<OutboxEvent> delivered = drain(store, 7);
            Map<String, List<Integer>> versions = new TreeMap<>();
            for (OutboxEvent e : delivered) {
                versions.computeIfAbsent(e.key().orElseThrow(), k -> new ArrayList<>())
                        .add(Integer.parseInt(new String(e.payload(), StandardCharsets.UTF_8)));
            }
            int total = versions.values().stream().mapToInt(List::size).sum();
            assertThat(total).as("every event delivered once").isEqualTo(delivered.size());
            versions.forEach((key, seen) -> assertThat(seen)
                    .as("key %s in its write order", key)
                    .isEqualTo(java.util.stream.IntStream.rangeClosed(1, seen.size())
                            .boxed()
                            .toList()));
        }

        /** Leases and publishes everything, {@code limit} at a time, and returns the events in lease order. */
        private List<OutboxEvent> drain(OutboxStore store, int limit) {
            List<OutboxEvent> delivered = new ArrayList<>();
            List<OutboxEvent> leased = leaseExpectingEvents(store, limit);
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
            int empty = 0;
            while (System.nanoTime() < deadline && empty < 20) {
                if (leased.isEmpty()) {
                    empty++;
                    try {
                        Thread.sleep(25);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                } else {
                    empty = 0;
                    delivered.addAll(leased);
                    store.markPublished(leased.get(0).leaseId().orElseThrow(), ids(leased), now());
                }
                leased = store.lease(UUID.randomUUID(), limit, now());
            }
            return delivered;
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

            ((OperatorStore) store).requeueDeadLetters(DeadLetterFilter.ids(Set.of(a1.id())), "contract", now());
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
