package dev.outboxjava.core.property;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryDecision;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.DeadLetterMark;
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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Drives random sequences of lease, publish success and failure, relay ticks, sweeps, clock moves,
 * requeues, releases, clean-ups and marks under stale leases over the in-memory store, and after
 * every step checks the store against a model and against the state machine's invariants. A third
 * of the seeds run unordered, a third with per-key ordering that holds a key behind a dead letter,
 * a third with per-key ordering that continues past one.
 *
 * <p>Plain JUnit with a seeded {@link Random}: every failure names its seed and the steps that led to
 * it. Replay one seed with {@code -Doutbox.property.seed=N}; run more with {@code -Doutbox.property.seeds=N}.
 */
@DisplayName("The outbox state machine, under random sequences of moves")
class OutboxStateMachinePropertyTest {

    private static final int STEPS = 200;
    private static final Duration LEASE_TIMEOUT = Duration.ofSeconds(60);

    static Stream<Long> seeds() {
        String one = System.getProperty("outbox.property.seed");
        if (one != null) {
            return Stream.of(Long.parseLong(one));
        }
        int count = Integer.getInteger("outbox.property.seeds", 200);
        return LongStream.range(0, count).map(i -> 0x5EED_0000L + i).boxed();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    @DisplayName("keeps every invariant after every step")
    void invariantsHold(long seed) {
        new Run(seed).execute();
    }

    static Ordering orderingFor(long seed) {
        return switch ((int) Math.floorMod(seed, 3L)) {
            case 0 -> Ordering.none();
            case 1 -> Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY);
            default -> Ordering.perKey(Ordering.AfterDeadLetter.CONTINUE);
        };
    }

    @org.junit.jupiter.api.Test
    @DisplayName("reaches every interesting case: stale marks, reclaims, dead letters, requeues, clean-ups")
    void walkCoversEveryCase() {
        Map<String, Integer> seen = new TreeMap<>();
        LongStream.range(0, 30)
                .forEach(seed -> new Run(seed).execute().seen.forEach((k, v) -> seen.merge(k, v, Integer::sum)));
        assertThat(seen)
                .as("cases reached by 30 seeds")
                .containsOnlyKeys(
                        "leased",
                        "marked sent",
                        "marked for retry",
                        "marked dead letter",
                        "dead letter with budget spent",
                        "relay published",
                        "relay retried",
                        "relay dead-lettered",
                        "relay released",
                        "held back by key order",
                        "reclaimed by sweeper",
                        "requeued",
                        "stale mark refused",
                        "released",
                        "cleaned",
                        "lease lost on mark");
    }

    /** What the store should hold for one event. */
    private static final class Expected {
        EventStatus status = EventStatus.PENDING;
        int attempts;
        final int maxAttempts;
        Optional<UUID> leaseId = Optional.empty();
        Optional<Instant> leasedAt = Optional.empty();
        Instant nextAttemptAt;
        Optional<Instant> sentAt = Optional.empty();
        final long sequence;
        final Optional<String> key;

        Expected(OutboxEvent stored) {
            this.key = stored.key();
            this.maxAttempts = stored.maxAttempts();
            this.nextAttemptAt = stored.nextAttemptAt();
            this.sequence = stored.sequence();
        }

        boolean heldBy(UUID lease) {
            return status == EventStatus.IN_FLIGHT && leaseId.equals(Optional.of(lease));
        }

        void toPending(Instant next, int newAttempts) {
            status = EventStatus.PENDING;
            attempts = newAttempts;
            nextAttemptAt = next;
            leaseId = Optional.empty();
            leasedAt = Optional.empty();
        }
    }

    /** A batch some relay leased; it may have gone stale since. */
    private record Holding(UUID leaseId, List<OutboxEvent> events) {}

    private static final class Run {
        private final long seed;
        private final Random random;
        private final ManualClock clock = ManualClock.startingAtEpochOf2024();
        private final Ordering ordering;
        private final InMemoryOutboxStore store;
        private final RetryPolicy retryPolicy;
        private final Map<UUID, Expected> model = new LinkedHashMap<>();
        private final List<Holding> holdings = new ArrayList<>();
        private final Deque<String> trace = new ArrayDeque<>();
        private final RandomPublisher publisher;
        private final TickListener listener = new TickListener();
        private final Relay relay;
        /** How often each interesting case happened, so a test can prove the walk reaches them. */
        final Map<String, Integer> seen = new TreeMap<>();

        Run(long seed) {
            this.seed = seed;
            this.random = new Random(seed);
            this.ordering = orderingFor(seed);
            this.store = new InMemoryOutboxStore(CompletionMode.KEEP_SENT, ordering);
            this.retryPolicy = RetryPolicy.builder()
                    .initialDelay(Duration.ofSeconds(1))
                    .multiplier(2)
                    .maxDelay(Duration.ofSeconds(30))
                    .jitter(0.3)
                    .seed(seed)
                    .build();
            this.publisher = new RandomPublisher(new Random(seed * 31 + 7));
            this.relay = new Relay(
                    store,
                    publisher,
                    new RelayConfig(4, Duration.ofMillis(50), ordering),
                    retryPolicy,
                    clock,
                    listener);
        }

        private void saw(String what, int times) {
            if (times > 0) {
                seen.merge(what, times, Integer::sum);
            }
        }

        Run execute() {
            for (int step = 1; step <= STEPS; step++) {
                try {
                    step();
                    checkInvariants();
                } catch (AssertionError | RuntimeException e) {
                    throw new AssertionError(
                            "seed " + seed + " (" + ordering + ") failed at step " + step + " (replay with "
                                    + "-Doutbox.property.seed=" + seed + "); last steps:\n  "
                                    + String.join("\n  ", trace)
                                    + "\n" + e.getMessage(),
                            e);
                }
            }
            return this;
        }

        private void note(String line) {
            trace.addLast(clock.instant() + " " + line);
            if (trace.size() > 15) {
                trace.removeFirst();
            }
        }

        private void step() {
            int roll = random.nextInt(100);
            if (roll < 12 || model.isEmpty()) {
                append();
            } else if (roll < 27) {
                lease();
            } else if (roll < 39) {
                publishSuccess();
            } else if (roll < 51) {
                publishFailure();
            } else if (roll < 59) {
                relayTick();
            } else if (roll < 66) {
                sweep();
            } else if (roll < 80) {
                advanceClock();
            } else if (roll < 85) {
                requeue();
            } else if (roll < 93) {
                markWithStaleLease();
            } else if (roll < 97) {
                release();
            } else {
                cleanUp();
            }
        }

        // --- moves ---------------------------------------------------------------------------------

        private void append() {
            int count = 1 + random.nextInt(3);
            List<OutboxEvent> fresh = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                OutboxEvent.Builder builder = OutboxEvent.builder()
                        .type("t" + random.nextInt(3))
                        .destination("d")
                        .payload(new byte[] {(byte) i})
                        .maxAttempts(1 + random.nextInt(4))
                        .clock(clock);
                if (random.nextInt(4) != 0) {
                    builder.key("k" + random.nextInt(3));
                }
                if (random.nextInt(5) == 0) {
                    builder.availableAt(clock.instant().plusSeconds(random.nextInt(30)));
                }
                fresh.add(builder.build());
            }
            for (OutboxEvent stored : store.append(fresh)) {
                model.put(stored.id(), new Expected(stored));
            }
            note("append " + count);
        }

        private void lease() {
            UUID lease = UUID.randomUUID();
            int limit = 1 + random.nextInt(5);
            Instant now = clock.instant();
            List<UUID> due = leasable(now, limit);

            List<OutboxEvent> leased = store.lease(lease, limit, now);

            note("lease " + lease + " limit " + limit + " -> " + leased.size());
            assertThat(leased)
                    .as("leased ids: the oldest due events that no earlier event of their key holds back")
                    .extracting(OutboxEvent::id)
                    .containsExactlyElementsOf(due);
            for (OutboxEvent event : leased) {
                assertThat(event.status()).isEqualTo(EventStatus.IN_FLIGHT);
                assertThat(event.leaseId()).contains(lease);
                Expected expected = model.get(event.id());
                expected.status = EventStatus.IN_FLIGHT;
                expected.leaseId = Optional.of(lease);
                expected.leasedAt = Optional.of(now);
            }
            saw("leased", leased.size());
            if (!leased.isEmpty()) {
                holdings.add(new Holding(lease, leased));
            }
        }

        private void publishSuccess() {
            Holding holding = pickHolding();
            if (holding == null) {
                return;
            }
            List<UUID> ids =
                    subset(holding.events()).stream().map(OutboxEvent::id).toList();
            Instant now = clock.instant();
            Set<UUID> shouldMark = heldBy(holding.leaseId(), ids);

            MarkResult result = store.markPublished(holding.leaseId(), ids, now);

            note("markPublished " + holding.leaseId() + " " + ids.size() + " -> "
                    + result.marked().size() + " marked");
            assertMarkResult(result, ids, shouldMark);
            saw("marked sent", shouldMark.size());
            for (UUID id : shouldMark) {
                Expected expected = model.get(id);
                expected.status = EventStatus.SENT;
                expected.sentAt = Optional.of(now);
            }
        }

        private void publishFailure() {
            Holding holding = pickHolding();
            if (holding == null) {
                return;
            }
            Instant now = clock.instant();
            List<RetryMark> retries = new ArrayList<>();
            List<DeadLetterMark> deadLetters = new ArrayList<>();
            for (OutboxEvent leased : subset(holding.events())) {
                // Decide as the relay does: from the event as leased, which may be out of date if the lease is stale.
                RetryDecision decision = retryPolicy.decide(leased, random.nextInt(5) != 0, now);
                if (decision.isDeadLetter()) {
                    deadLetters.add(new DeadLetterMark(leased.id(), "gave up"));
                } else {
                    retries.add(new RetryMark(
                            leased.id(), "try again", decision.nextAttemptAt().orElseThrow()));
                }
            }
            List<UUID> retryIds = retries.stream().map(RetryMark::eventId).toList();
            List<UUID> deadIds =
                    deadLetters.stream().map(DeadLetterMark::eventId).toList();
            Set<UUID> retryShould = heldBy(holding.leaseId(), retryIds);
            Set<UUID> deadShould = heldBy(holding.leaseId(), deadIds);

            MarkResult retried = store.markRetry(holding.leaseId(), retries, now);
            MarkResult dead = store.markDeadLettered(holding.leaseId(), deadLetters, now);

            note("fail " + holding.leaseId() + " retry " + retryIds.size() + " -> "
                    + retried.marked().size() + ", dead " + deadIds.size() + " -> "
                    + dead.marked().size());
            assertMarkResult(retried, retryIds, retryShould);
            assertMarkResult(dead, deadIds, deadShould);
            saw("marked for retry", retried.marked().size());
            saw("marked dead letter", dead.marked().size());
            for (RetryMark mark : retries) {
                if (retryShould.contains(mark.eventId())) {
                    Expected expected = model.get(mark.eventId());
                    expected.toPending(mark.nextAttemptAt(), expected.attempts + 1);
                }
            }
            for (UUID id : deadShould) {
                Expected expected = model.get(id);
                expected.status = EventStatus.FAILED;
                expected.attempts++;
                saw("dead letter with budget spent", expected.attempts == expected.maxAttempts ? 1 : 0);
                expected.leaseId = Optional.empty();
                expected.leasedAt = Optional.empty();
            }
        }

        private void relayTick() {
            Instant now = clock.instant();
            List<UUID> due = leasable(now, relay.settings().batchSize());
            listener.clear();

            RelayResult result = relay.runOnce();

            note("relay tick -> " + result);
            assertThat(result.leased()).isEqualTo(due.size());
            assertThat(result.leaseLost())
                    .as("a fresh lease is never lost in one thread")
                    .isZero();
            assertThat(result.published() + result.retried() + result.deadLettered() + result.released())
                    .isEqualTo(due.size());
            Set<UUID> reported = new HashSet<>();
            reported.addAll(listener.published);
            reported.addAll(listener.retried.keySet());
            reported.addAll(listener.deadLettered);
            reported.addAll(listener.released);
            assertThat(reported)
                    .as("every leased event got exactly one outcome")
                    .containsExactlyInAnyOrderElementsOf(due);
            assertThat(listener.published.size()
                            + listener.retried.size()
                            + listener.deadLettered.size()
                            + listener.released.size())
                    .isEqualTo(due.size());
            if (!due.isEmpty()) {
                checkKeyOrderWithinBatch(publisher.lastBatch);
            }
            saw("relay published", result.published());
            saw("relay retried", result.retried());
            saw("relay dead-lettered", result.deadLettered());
            saw("relay released", result.released());
            for (UUID id : listener.released) {
                Expected expected = model.get(id);
                expected.toPending(expected.nextAttemptAt, expected.attempts); // untried: no attempt spent
            }
            for (UUID id : listener.published) {
                Expected expected = model.get(id);
                expected.status = EventStatus.SENT;
                expected.sentAt = Optional.of(now);
                expected.leaseId = Optional.of(listener.leaseOf.get(id));
                expected.leasedAt = Optional.of(now);
            }
            listener.retried.forEach((id, next) -> {
                Expected expected = model.get(id);
                expected.toPending(next, expected.attempts + 1);
            });
            for (UUID id : listener.deadLettered) {
                Expected expected = model.get(id);
                expected.status = EventStatus.FAILED;
                expected.attempts++;
                expected.leaseId = Optional.empty();
                expected.leasedAt = Optional.empty();
            }
        }

        private void sweep() {
            Instant cutoff = clock.instant().minus(LEASE_TIMEOUT);
            int limit = 1 + random.nextInt(4);
            List<UUID> expired = model.entrySet().stream()
                    .filter(e -> e.getValue().status == EventStatus.IN_FLIGHT
                            && e.getValue().leasedAt.orElseThrow().isBefore(cutoff))
                    .sorted(Comparator.comparingLong(e -> e.getValue().sequence))
                    .limit(limit)
                    .map(Map.Entry::getKey)
                    .toList();

            int reclaimed = store.sweepExpiredLeases(cutoff, limit);

            note("sweep limit " + limit + " -> " + reclaimed);
            assertThat(reclaimed).isEqualTo(expired.size());
            saw("reclaimed by sweeper", reclaimed);
            for (UUID id : expired) {
                Expected expected = model.get(id);
                expected.toPending(expected.nextAttemptAt, expected.attempts); // attempts unchanged
            }
        }

        private void advanceClock() {
            Duration by = Duration.ofMillis(random.nextInt(4) == 0 ? 0 : random.nextInt(90_000));
            clock.advance(by);
            note("advance " + by);
        }

        private void requeue() {
            List<UUID> dead = model.entrySet().stream()
                    .filter(e -> e.getValue().status == EventStatus.FAILED)
                    .map(Map.Entry::getKey)
                    .toList();
            Set<UUID> chosen;
            DeadLetterFilter selector;
            if (random.nextBoolean()) {
                selector = DeadLetterFilter.any();
                chosen = Set.copyOf(dead);
            } else {
                chosen = new HashSet<>(subset(dead));
                Set<UUID> asked = new HashSet<>(chosen);
                model.entrySet().stream()
                        .filter(e -> e.getValue().status != EventStatus.FAILED)
                        .filter(e -> random.nextInt(10) == 0)
                        .forEach(e -> asked.add(e.getKey())); // ignored by the store
                if (asked.isEmpty()) {
                    return; // an empty id filter means any id: nothing to ask for
                }
                selector = DeadLetterFilter.ids(asked);
            }
            Instant now = clock.instant();

            long requeued = store.requeueDeadLetters(selector, "property", now);

            note("requeue " + selector.describe() + " -> " + requeued);
            assertThat(requeued).isEqualTo(chosen.size());
            saw("requeued", (int) requeued);
            for (UUID id : chosen) {
                model.get(id).toPending(now, 0);
            }
        }

        private void markWithStaleLease() {
            List<Holding> stale = holdings.stream()
                    .filter(h -> h.events().stream().anyMatch(e -> !isHeldBy(h.leaseId(), e.id())))
                    .toList();
            if (stale.isEmpty()) {
                return;
            }
            Holding holding = stale.get(random.nextInt(stale.size()));
            List<UUID> ids = holding.events().stream()
                    .map(OutboxEvent::id)
                    .filter(id -> !isHeldBy(holding.leaseId(), id))
                    .toList();
            List<OutboxEvent> before = store.all();
            Instant now = clock.instant();

            MarkResult result = switch (random.nextInt(4)) {
                case 0 -> store.markPublished(holding.leaseId(), ids, now);
                case 1 ->
                    store.markRetry(
                            holding.leaseId(),
                            ids.stream()
                                    .map(id -> new RetryMark(id, "stale", now.plusSeconds(1)))
                                    .toList(),
                            now);
                case 2 ->
                    store.markDeadLettered(
                            holding.leaseId(),
                            ids.stream()
                                    .map(id -> new DeadLetterMark(id, "stale"))
                                    .toList(),
                            now);
                default -> store.release(holding.leaseId(), ids, now);
            };

            saw("stale mark refused", ids.size());
            note("stale mark " + holding.leaseId() + " " + ids.size() + " ids");
            assertThat(result.marked()).as("a stale lease marks nothing").isEmpty();
            assertThat(result.leaseLost())
                    .as("every stale mark is reported lease-lost")
                    .containsExactlyInAnyOrderElementsOf(ids);
            assertThat(store.all()).as("a stale lease changes nothing").isEqualTo(before);
        }

        private void release() {
            Holding holding = pickHolding();
            if (holding == null) {
                return;
            }
            List<UUID> ids =
                    subset(holding.events()).stream().map(OutboxEvent::id).toList();
            Set<UUID> shouldMark = heldBy(holding.leaseId(), ids);

            MarkResult result = store.release(holding.leaseId(), ids, clock.instant());

            note("release " + holding.leaseId() + " " + ids.size() + " -> "
                    + result.marked().size());
            assertMarkResult(result, ids, shouldMark);
            saw("released", shouldMark.size());
            for (UUID id : shouldMark) {
                Expected expected = model.get(id);
                expected.toPending(expected.nextAttemptAt, expected.attempts);
            }
        }

        private void cleanUp() {
            Instant cutoff = clock.instant().minusSeconds(random.nextInt(120));
            int limit = 1 + random.nextInt(5);
            List<UUID> old = model.entrySet().stream()
                    .filter(e -> e.getValue().status == EventStatus.SENT
                            && e.getValue().sentAt.orElseThrow().isBefore(cutoff))
                    .sorted(Comparator.comparingLong(e -> e.getValue().sequence))
                    .limit(limit)
                    .map(Map.Entry::getKey)
                    .toList();

            int deleted = store.cleanUp(cutoff, limit);

            note("cleanUp limit " + limit + " -> " + deleted);
            assertThat(deleted).isEqualTo(old.size());
            saw("cleaned", deleted);
            old.forEach(model::remove);
        }

        // --- helpers -------------------------------------------------------------------------------

        /**
         * What a lease must return: due pending events, oldest first, up to {@code limit} — except that,
         * with per-key ordering, an event is held back while an earlier event of its key is pending and
         * not due, in flight, or (when dead letters hold the key) dead-lettered.
         */
        private List<UUID> leasable(Instant now, int limit) {
            List<Map.Entry<UUID, Expected>> inOrder = model.entrySet().stream()
                    .sorted(Comparator.comparingLong(e -> e.getValue().sequence))
                    .toList();
            Set<String> blockedKeys = new HashSet<>();
            List<UUID> leasable = new ArrayList<>();
            int heldBack = 0;
            for (Map.Entry<UUID, Expected> entry : inOrder) {
                Expected event = entry.getValue();
                boolean due = event.status == EventStatus.PENDING && !event.nextAttemptAt.isAfter(now);
                boolean ordered = ordering.isPerKey() && event.key.isPresent();
                if (ordered && blockedKeys.contains(event.key.get())) {
                    heldBack += due ? 1 : 0;
                    continue;
                }
                if (due) {
                    if (leasable.size() < limit) {
                        leasable.add(entry.getKey());
                    }
                } else if (ordered
                        && (event.status == EventStatus.PENDING
                                || event.status == EventStatus.IN_FLIGHT
                                || (event.status == EventStatus.FAILED && ordering.deadLetterHoldsKey()))) {
                    blockedKeys.add(event.key.get());
                }
            }
            saw("held back by key order", heldBack);
            return leasable;
        }

        /**
         * With per-key ordering, within one relay batch each key's events end as: the acknowledged run
         * first (sent), then at most one failure (retried or dead-lettered), then only released events.
         * Unordered, nothing is released.
         */
        private void checkKeyOrderWithinBatch(List<OutboxEvent> batch) {
            if (!ordering.isPerKey()) {
                assertThat(listener.released)
                        .as("an unordered relay releases nothing")
                        .isEmpty();
                return;
            }
            Set<String> failedKeys = new HashSet<>();
            for (OutboxEvent event : batch) {
                UUID id = event.id();
                boolean failed = listener.retried.containsKey(id) || listener.deadLettered.contains(id);
                if (event.key().isEmpty()) {
                    assertThat(listener.released)
                            .as("an event without a key is never held back")
                            .doesNotContain(id);
                    continue;
                }
                String key = event.key().get();
                if (failedKeys.contains(key)) {
                    assertThat(listener.released)
                            .as(
                                    "event %s of key %s comes after a failure of its key in the "
                                            + "batch, so it goes back untried",
                                    id, key)
                            .contains(id);
                } else {
                    assertThat(listener.released)
                            .as("event %s of key %s has no earlier failure in the batch", id, key)
                            .doesNotContain(id);
                    if (failed) {
                        failedKeys.add(key);
                    }
                }
            }
        }

        private Holding pickHolding() {
            return holdings.isEmpty() ? null : holdings.get(random.nextInt(holdings.size()));
        }

        private <T> List<T> subset(List<T> from) {
            List<T> chosen = new ArrayList<>();
            for (T item : from) {
                if (random.nextInt(3) != 0) {
                    chosen.add(item);
                }
            }
            return chosen;
        }

        private boolean isHeldBy(UUID lease, UUID id) {
            Expected expected = model.get(id);
            return expected != null && expected.heldBy(lease);
        }

        private Set<UUID> heldBy(UUID lease, Collection<UUID> ids) {
            Set<UUID> held = new HashSet<>();
            for (UUID id : ids) {
                if (isHeldBy(lease, id)) {
                    held.add(id);
                }
            }
            return held;
        }

        private void assertMarkResult(MarkResult result, Collection<UUID> asked, Set<UUID> shouldMark) {
            Set<UUID> lost = new HashSet<>(asked);
            lost.removeAll(shouldMark);
            assertThat(result.marked())
                    .as("marked: exactly the events the lease still holds")
                    .containsExactlyInAnyOrderElementsOf(shouldMark);
            assertThat(result.leaseLost())
                    .as("lease-lost: every other asked event")
                    .containsExactlyInAnyOrderElementsOf(lost);
            saw("lease lost on mark", lost.size());
        }

        // --- invariants ----------------------------------------------------------------------------

        private void checkInvariants() {
            List<OutboxEvent> all = store.all();
            Map<UUID, OutboxEvent> byId = new HashMap<>();
            Map<EventStatus, Long> counted = new EnumMap<>(EventStatus.class);
            for (EventStatus status : EventStatus.values()) {
                counted.put(status, 0L);
            }
            for (OutboxEvent event : all) {
                check(byId.put(event.id(), event) == null, event, "appears more than once (more than one status)");
                counted.merge(event.status(), 1L, Long::sum);
                checkEvent(event);
            }
            assertThat(byId.keySet())
                    .as("the store holds exactly the model's events")
                    .containsExactlyInAnyOrderElementsOf(model.keySet());
            Map<EventStatus, Long> reported = store.countByStatus();
            assertThat(reported).as("counts by status").isEqualTo(counted);
            assertThat(reported.values().stream().mapToLong(Long::longValue).sum())
                    .as("counts sum to the events")
                    .isEqualTo(all.size());
            assertThat(store.oldestPendingCreatedAt())
                    .as("oldest pending")
                    .isEqualTo(all.stream()
                            .filter(e -> e.status() == EventStatus.PENDING)
                            .map(OutboxEvent::createdAt)
                            .min(Comparator.naturalOrder()));
        }

        /** Plain checks rather than AssertJ here: this runs for every event after every step. */
        private void checkEvent(OutboxEvent event) {
            Expected expected = model.get(event.id());
            check(expected != null, event, "is not in the model");
            check(event.status() == expected.status, event, "status should be " + expected.status);
            check(event.attempts() == expected.attempts, event, "attempts should be " + expected.attempts);
            check(
                    event.attempts() >= 0 && event.attempts() <= event.maxAttempts(),
                    event,
                    "attempts exceed the budget");
            check(event.maxAttempts() == expected.maxAttempts, event, "max attempts changed");
            check(
                    event.nextAttemptAt().equals(expected.nextAttemptAt),
                    event,
                    "next attempt should be " + expected.nextAttemptAt + " but is " + event.nextAttemptAt());
            check(store.find(event.id()).equals(Optional.of(event)), event, "find disagrees with all()");
            check(event.attempts() == 0 || event.lastError().isPresent(), event, "failed without saying why");
            switch (event.status()) {
                case PENDING -> {
                    check(event.leaseId().isEmpty() && event.leasedAt().isEmpty(), event, "pending but leased");
                    check(event.sentAt().isEmpty(), event, "pending but sent");
                    check(event.attempts() < event.maxAttempts(), event, "pending with no budget left");
                }
                case IN_FLIGHT -> {
                    check(
                            event.leaseId().isPresent() && event.leasedAt().isPresent(),
                            event,
                            "in flight without a lease id and lease time");
                    check(
                            event.leaseId().equals(expected.leaseId),
                            event,
                            "held by " + event.leaseId() + " but the current holder is " + expected.leaseId);
                    check(event.leasedAt().equals(expected.leasedAt), event, "leased at the wrong time");
                    check(event.sentAt().isEmpty(), event, "in flight but sent");
                }
                case SENT ->
                    check(
                            event.sentAt().isPresent() && event.sentAt().equals(expected.sentAt),
                            event,
                            "sent at " + event.sentAt() + ", expected " + expected.sentAt);
                case FAILED -> {
                    check(event.leaseId().isEmpty() && event.leasedAt().isEmpty(), event, "dead letter still leased");
                    check(event.sentAt().isEmpty(), event, "dead letter but sent");
                    check(
                            event.attempts() > 0 && event.lastError().isPresent(),
                            event,
                            "dead letter without an attempt or an error");
                }
            }
        }

        private static void check(boolean condition, OutboxEvent event, String problem) {
            if (!condition) {
                throw new AssertionError("invariant broken: " + event + " " + problem);
            }
        }
    }

    /** Answers each event at random: published, retryable or permanent failure, or no outcome at all. */
    private static final class RandomPublisher implements Publisher {
        private final Random random;
        List<OutboxEvent> lastBatch = List.of();

        RandomPublisher(Random random) {
            this.random = random;
        }

        @Override
        public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
            lastBatch = List.copyOf(batch);
            List<PublishOutcome> outcomes = new ArrayList<>();
            for (OutboxEvent event : batch) {
                int roll = random.nextInt(10);
                if (roll < 5) {
                    outcomes.add(PublishOutcome.published(event.id()));
                } else if (roll < 8) {
                    outcomes.add(PublishOutcome.failed(event.id(), "broker busy", true));
                } else if (roll < 9) {
                    outcomes.add(PublishOutcome.failed(event.id(), "rejected", false));
                } // else: no outcome, which the relay must treat as a retryable failure
            }
            return CompletableFuture.completedFuture(outcomes);
        }

        @Override
        public HealthCheck checkHealth() {
            return HealthCheck.up("random");
        }

        @Override
        public void close() {}
    }

    /** Collects one relay tick's per-event reports. */
    private static final class TickListener implements RelayListener {
        final List<UUID> published = new ArrayList<>();
        final Map<UUID, Instant> retried = new HashMap<>();
        final List<UUID> deadLettered = new ArrayList<>();
        final List<UUID> released = new ArrayList<>();
        final Map<UUID, UUID> leaseOf = new HashMap<>();

        void clear() {
            released.clear();
            published.clear();
            retried.clear();
            deadLettered.clear();
            leaseOf.clear();
        }

        @Override
        public void onPublished(OutboxEvent event, Instant acknowledgedAt) {
            published.add(event.id());
            leaseOf.put(event.id(), event.leaseId().orElseThrow());
        }

        @Override
        public void onRetryScheduled(OutboxEvent event, String reason, Instant nextAttemptAt) {
            retried.put(event.id(), nextAttemptAt);
        }

        @Override
        public void onDeadLettered(OutboxEvent event, String reason, boolean retryable) {
            deadLettered.add(event.id());
        }

        @Override
        public void onReleased(OutboxEvent event) {
            released.add(event.id());
        }
    }
}
