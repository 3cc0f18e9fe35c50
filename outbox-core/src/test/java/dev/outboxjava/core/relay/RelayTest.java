package dev.outboxjava.core.relay;

import static dev.outboxjava.core.relay.ScriptedPublisher.Response.notRetryable;
import static dev.outboxjava.core.relay.ScriptedPublisher.Response.omitted;
import static dev.outboxjava.core.relay.ScriptedPublisher.Response.retryable;
import static dev.outboxjava.core.relay.ScriptedPublisher.Response.unroutable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.DeadLetterReason;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("Relay, one tick at a time over the in-memory store")
class RelayTest {

    private static final Duration PUBLISH_TIMEOUT = Duration.ofMillis(50);
    private static final Duration LEASE_TIMEOUT = Duration.ofMinutes(2);

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final InMemoryOutboxStore store = new InMemoryOutboxStore();
    private final ScriptedPublisher publisher = new ScriptedPublisher();
    private final RecordingListener listener = new RecordingListener();
    /** No jitter, so the next attempt times are exact: 1 s, 2 s, 4 s, ... */
    private final RetryPolicy retryPolicy = RetryPolicy.builder()
            .initialDelay(Duration.ofSeconds(1))
            .multiplier(2)
            .maxDelay(Duration.ofMinutes(1))
            .jitter(0)
            .build();

    private final Relay relay = relay(publisher);

    private Relay relay(Publisher with) {
        return new Relay(store, with, new RelayConfig(10, PUBLISH_TIMEOUT), retryPolicy, clock, listener);
    }

    private OutboxEvent append(int maxAttempts) {
        OutboxEvent event = OutboxEvent.builder()
                .type("order.placed")
                .destination("orders")
                .key("order-1")
                .payload(new byte[] {1})
                .maxAttempts(maxAttempts)
                .clock(clock)
                .build();
        return store.append(event).get(0);
    }

    private OutboxEvent append() {
        return append(5);
    }

    private List<OutboxEvent> append(int count, int maxAttempts) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(append(maxAttempts));
        }
        return events;
    }

    private OutboxEvent stored(OutboxEvent event) {
        return store.find(event.id()).orElseThrow();
    }

    @Nested
    @DisplayName("when the broker acknowledges")
    class Success {

        @Test
        @DisplayName("the event is marked sent at the acknowledgement time and counted as published")
        void publishedEventIsSent() {
            OutboxEvent event = append();
            clock.advance(Duration.ofSeconds(3));

            RelayResult result = relay.runOnce();

            assertThat(result.leased()).isEqualTo(1);
            assertThat(result.published()).isEqualTo(1);
            assertThat(result.retried() + result.deadLettered() + result.leaseLost())
                    .isZero();
            OutboxEvent sent = stored(event);
            assertThat(sent.status()).isEqualTo(EventStatus.SENT);
            assertThat(sent.sentAt()).contains(clock.instant());
            assertThat(sent.attempts()).isZero();
            assertThat(listener.published).containsExactly(event.id());
            assertThat(listener.ticks).containsExactly(result);
        }

        @Test
        @DisplayName("the publisher receives the leased batch in append order, with the configured timeout")
        void publisherGetsBatchInOrder() {
            List<OutboxEvent> events = append(3, 5);

            relay.runOnce();

            assertThat(publisher.batches()).hasSize(1);
            assertThat(publisher.batches().get(0))
                    .extracting(OutboxEvent::id)
                    .containsExactlyElementsOf(
                            events.stream().map(OutboxEvent::id).toList());
            assertThat(publisher.batches().get(0))
                    .allSatisfy(e -> assertThat(e.status()).isEqualTo(EventStatus.IN_FLIGHT));
            assertThat(publisher.timeouts()).containsExactly(PUBLISH_TIMEOUT);
        }

        @Test
        @DisplayName("a tick leases at most one batch; the next tick takes the rest")
        void batchSizeBoundsTheTick() {
            append(15, 5);

            assertThat(relay.runOnce().published()).isEqualTo(10);
            assertThat(relay.runOnce().published()).isEqualTo(5);
            assertThat(store.countByStatus()).containsEntry(EventStatus.SENT, 15L);
        }

        @Test
        @DisplayName("with nothing due, a tick is idle and does not call the publisher")
        void idleTick() {
            RelayResult result = relay.runOnce();

            assertThat(result.leased()).isZero();
            assertThat(result.published()).isZero();
            assertThat(publisher.publishCalls()).isZero();
            assertThat(listener.ticks).containsExactly(result);
        }

        @Test
        @DisplayName("a delayed event is not published before its time")
        void delayedEvent() {
            OutboxEvent event = store.append(OutboxEvent.builder()
                            .type("t")
                            .destination("d")
                            .payload(new byte[0])
                            .clock(clock)
                            .availableAt(clock.instant().plusSeconds(60))
                            .build())
                    .get(0);

            clock.advance(Duration.ofSeconds(59));
            assertThat(relay.runOnce().leased()).isZero();
            clock.advance(Duration.ofSeconds(1));
            assertThat(relay.runOnce().published()).isEqualTo(1);
            assertThat(stored(event).status()).isEqualTo(EventStatus.SENT);
        }
    }

    @Nested
    @DisplayName("when a publish fails and may be retried")
    class RetryableFailure {

        @Test
        @DisplayName(
                "the event goes back to pending with one more attempt, the error, and a next attempt after the backoff")
        void failureSchedulesRetry() {
            OutboxEvent event = append();
            publisher.thenRespond(event.id(), retryable("broker unreachable"));
            Instant failedAt = clock.instant();

            RelayResult result = relay.runOnce();

            assertThat(result.retried()).isEqualTo(1);
            assertThat(result.published()).isZero();
            OutboxEvent pending = stored(event);
            assertThat(pending.status()).isEqualTo(EventStatus.PENDING);
            assertThat(pending.attempts()).isEqualTo(1);
            assertThat(pending.lastError()).contains("broker unreachable");
            assertThat(pending.nextAttemptAt())
                    .isEqualTo(failedAt.plusSeconds(1))
                    .isAfter(clock.instant());
            assertThat(pending.leaseId()).isEmpty();
            assertThat(pending.leasedAt()).isEmpty();
            assertThat(listener.retried).containsExactly(event.id());
        }

        @Test
        @DisplayName("the event is not leased again before its next attempt time, and is at that time")
        void notLeasedBeforeNextAttempt() {
            OutboxEvent event = append();
            publisher.thenRespond(event.id(), retryable("broker unreachable"));
            relay.runOnce();

            assertThat(relay.runOnce().leased()).isZero();
            clock.advance(Duration.ofMillis(999));
            assertThat(relay.runOnce().leased()).isZero();
            assertThat(publisher.publishCalls()).isEqualTo(1);

            clock.advance(Duration.ofMillis(1));
            RelayResult retry = relay.runOnce();
            assertThat(retry.published()).isEqualTo(1);
            assertThat(stored(event).status()).isEqualTo(EventStatus.SENT);
            assertThat(stored(event).attempts()).isEqualTo(1);
        }

        @Test
        @DisplayName("each further failure waits longer (exponential backoff)")
        void backoffGrows() {
            OutboxEvent event = append();
            publisher.thenRespond(event.id(), retryable("1"), retryable("2"), retryable("3"));

            relay.runOnce();
            assertThat(stored(event).nextAttemptAt()).isEqualTo(clock.instant().plusSeconds(1));
            clock.advance(Duration.ofSeconds(1));
            relay.runOnce();
            assertThat(stored(event).nextAttemptAt()).isEqualTo(clock.instant().plusSeconds(2));
            clock.advance(Duration.ofSeconds(2));
            relay.runOnce();
            assertThat(stored(event).nextAttemptAt()).isEqualTo(clock.instant().plusSeconds(4));
            assertThat(stored(event).attempts()).isEqualTo(3);
            assertThat(stored(event).lastError()).contains("3");
        }
    }

    @Nested
    @DisplayName("when a publish fails for good")
    class DeadLetter {

        @Test
        @DisplayName("an event whose attempt budget is spent becomes a dead letter with its last error")
        void budgetExhausted() {
            OutboxEvent event = append(3);
            publisher.alwaysRespond(event.id(), retryable("broker unreachable"));

            relay.runOnce();
            clock.advance(Duration.ofSeconds(1));
            relay.runOnce();
            clock.advance(Duration.ofSeconds(2));
            RelayResult last = relay.runOnce();

            assertThat(last.deadLettered()).isEqualTo(1);
            assertThat(last.retried()).isZero();
            OutboxEvent dead = stored(event);
            assertThat(dead.status()).isEqualTo(EventStatus.FAILED);
            assertThat(dead.attempts()).isEqualTo(3).isEqualTo(dead.maxAttempts());
            assertThat(dead.lastError()).contains("broker unreachable");
            assertThat(dead.leaseId()).isEmpty();
            assertThat(store.countByStatus()).containsEntry(EventStatus.FAILED, 1L);
            assertThat(listener.deadLettered).containsExactly(event.id());

            clock.advance(Duration.ofHours(1));
            assertThat(relay.runOnce().leased())
                    .as("a dead letter is never leased again")
                    .isZero();
        }

        @Test
        @DisplayName("a failure that cannot be retried dead-letters the event at once, whatever its budget")
        void notRetryableFailure() {
            OutboxEvent event = append(10);
            publisher.thenRespond(event.id(), notRetryable("message too large"));

            RelayResult result = relay.runOnce();

            assertThat(result.deadLettered()).isEqualTo(1);
            OutboxEvent dead = stored(event);
            assertThat(dead.status()).isEqualTo(EventStatus.FAILED);
            assertThat(dead.attempts()).isEqualTo(1);
            assertThat(dead.lastError()).contains("message too large");
            assertThat(store.attempts(event.id()).get(0).stoppedBy())
                    .contains(DeadLetterReason.notRetryable().describe());
        }
    }

    @Nested
    @DisplayName("when the destination is unroutable")
    class Unroutable {

        @Test
        @DisplayName("the event is dead-lettered after the policy's unroutable budget (3), not its own (10)")
        void ownSmallBudget() {
            OutboxEvent event = append(10);
            publisher.alwaysRespond(event.id(), unroutable("exchange 'orders' does not exist"));

            relay.runOnce();
            clock.advance(Duration.ofSeconds(1));
            relay.runOnce();
            clock.advance(Duration.ofSeconds(2));
            RelayResult third = relay.runOnce();

            assertThat(third.deadLettered()).isEqualTo(1);
            OutboxEvent dead = stored(event);
            assertThat(dead.status()).isEqualTo(EventStatus.FAILED);
            assertThat(dead.attempts()).isEqualTo(RetryPolicy.DEFAULT_UNROUTABLE_MAX_ATTEMPTS);
            assertThat(dead.lastError().orElseThrow()).contains("does not exist");
            assertThat(listener.failures)
                    .hasSize(3)
                    .allSatisfy(f -> assertThat(f.unroutable()).isTrue());
            assertThat(store.attempts(event.id()).get(2).stoppedBy())
                    .contains(new DeadLetterReason(DeadLetterReason.Kind.UNROUTABLE_BUDGET, 3).describe());
        }

        @Test
        @DisplayName("an event's own smaller budget still wins, and is named as what stopped it")
        void smallerOwnBudget() {
            OutboxEvent event = append(1);
            publisher.alwaysRespond(event.id(), unroutable("no route"));

            assertThat(relay.runOnce().deadLettered()).isEqualTo(1);
            assertThat(store.attempts(event.id()))
                    .singleElement()
                    .satisfies(attempt -> assertThat(attempt.stoppedBy())
                            .contains(new DeadLetterReason(DeadLetterReason.Kind.ATTEMPT_BUDGET, 1).describe()));
        }

        @Test
        @DisplayName("other failures keep the event's full budget")
        void otherFailuresKeepBudget() {
            OutboxEvent event = append(10);
            publisher.alwaysRespond(event.id(), retryable("broker unreachable"));
            for (int i = 0; i < 3; i++) {
                relay.runOnce();
                clock.advance(Duration.ofMinutes(1));
            }
            assertThat(stored(event).status()).isEqualTo(EventStatus.PENDING);
            assertThat(listener.failures)
                    .hasSize(3)
                    .noneSatisfy(f -> assertThat(f.unroutable()).isTrue());
        }
    }

    @Nested
    @DisplayName("one bad event")
    class OneBadEvent {

        @Test
        @DisplayName("never fails its batch: each event gets its own outcome")
        void neverFailsTheBatch() {
            List<OutboxEvent> events = append(5, 5);
            publisher.thenRespond(events.get(1).id(), retryable("partition leader moved"));
            publisher.thenRespond(events.get(3).id(), notRetryable("not authorized"));

            RelayResult result = relay.runOnce();

            assertThat(result)
                    .extracting(
                            RelayResult::leased,
                            RelayResult::published,
                            RelayResult::retried,
                            RelayResult::deadLettered,
                            RelayResult::leaseLost)
                    .containsExactly(5, 3, 1, 1, 0);
            assertThat(stored(events.get(0)).status()).isEqualTo(EventStatus.SENT);
            assertThat(stored(events.get(1)).status()).isEqualTo(EventStatus.PENDING);
            assertThat(stored(events.get(2)).status()).isEqualTo(EventStatus.SENT);
            assertThat(stored(events.get(3)).status()).isEqualTo(EventStatus.FAILED);
            assertThat(stored(events.get(4)).status()).isEqualTo(EventStatus.SENT);
        }

        @Test
        @DisplayName(
                "that the publisher forgot to report on is a retryable failure; the others are marked by their outcome")
        void missingOutcome() {
            List<OutboxEvent> events = append(3, 5);
            publisher.thenRespond(events.get(1).id(), omitted());

            RelayResult result = relay.runOnce();

            assertThat(result.published()).isEqualTo(2);
            assertThat(result.retried()).isEqualTo(1);
            OutboxEvent forgotten = stored(events.get(1));
            assertThat(forgotten.status()).isEqualTo(EventStatus.PENDING);
            assertThat(forgotten.attempts()).isEqualTo(1);
            assertThat(forgotten.lastError()).contains("publisher reported no outcome");
        }
    }

    @Nested
    @DisplayName("a publisher that breaks its contract")
    class BrokenPublisher {

        @Test
        @DisplayName("and never completes: at the publish timeout every event becomes a retryable failure")
        void neverCompletes() {
            List<OutboxEvent> events = append(2, 5);

            RelayResult result = relay(MisbehavingPublishers.neverCompleting()).runOnce();

            assertThat(result.retried()).isEqualTo(2);
            assertThat(events).allSatisfy(event -> {
                assertThat(stored(event).status()).isEqualTo(EventStatus.PENDING);
                assertThat(stored(event).attempts()).isEqualTo(1);
                assertThat(stored(event).lastError())
                        .hasValueSatisfying(
                                error -> assertThat(error).contains("not acknowledged within " + PUBLISH_TIMEOUT));
            });
        }

        @Test
        @DisplayName("and throws: every event becomes a retryable failure naming the exception, and the tick completes")
        void throwsFromPublish() {
            List<OutboxEvent> events = append(2, 5);

            RelayResult result = relay(MisbehavingPublishers.throwing(new IllegalStateException("serializer bug")))
                    .runOnce();

            assertThat(result.retried()).isEqualTo(2);
            assertThat(events).allSatisfy(event -> {
                assertThat(stored(event).status()).isEqualTo(EventStatus.PENDING);
                assertThat(stored(event).attempts()).isEqualTo(1);
                assertThat(stored(event).lastError())
                        .hasValueSatisfying(error -> assertThat(error).contains("publisher failed", "serializer bug"));
            });
        }

        @Test
        @DisplayName("and throws every time: the events spend their budget and become dead letters instead of looping")
        void throwsForeverEndsInDeadLetter() {
            OutboxEvent event = append(2);
            Relay broken = relay(MisbehavingPublishers.throwing(new IllegalStateException("serializer bug")));

            broken.runOnce();
            clock.advance(Duration.ofSeconds(1));
            broken.runOnce();

            assertThat(stored(event).status()).isEqualTo(EventStatus.FAILED);
            assertThat(stored(event).attempts()).isEqualTo(2);
        }

        @Test
        @DisplayName("and fails its future: every event becomes a retryable failure naming the cause")
        void failedFuture() {
            OutboxEvent event = append();

            RelayResult result = relay(
                            MisbehavingPublishers.failingFuture(new IllegalStateException("connection reset")))
                    .runOnce();

            assertThat(result.retried()).isEqualTo(1);
            assertThat(stored(event).lastError())
                    .hasValueSatisfying(error -> assertThat(error).contains("publisher failed", "connection reset"));
        }

        @Test
        @DisplayName("and returns no future: every event becomes a retryable failure")
        void returnsNull() {
            OutboxEvent event = append();

            RelayResult result = relay(MisbehavingPublishers.returningNull()).runOnce();

            assertThat(result.retried()).isEqualTo(1);
            assertThat(stored(event).status()).isEqualTo(EventStatus.PENDING);
        }
    }

    @Nested
    @DisplayName("when the lease is lost while publishing (the sweeper reclaimed it and another relay leased it)")
    class LeaseLost {

        private final UUID otherLease = UUID.randomUUID();
        private final Sweeper sweeper = new Sweeper(store, new SweeperConfig(LEASE_TIMEOUT, 100, 1), clock);

        private void takeOverDuringPublish() {
            publisher.duringPublish(batch -> {
                clock.advance(LEASE_TIMEOUT.plusSeconds(1));
                assertThat(sweeper.runOnce()).isEqualTo(batch.size());
                assertThat(store.lease(otherLease, 100, clock.instant())).hasSize(batch.size());
            });
        }

        @Test
        @DisplayName("a publish is not counted as sent but as lease-lost, and the event stays with its new holder")
        void notCountedAsSent() {
            OutboxEvent event = append();
            takeOverDuringPublish();

            RelayResult result = relay.runOnce();

            assertThat(result.published()).isZero();
            assertThat(result.leaseLost()).isEqualTo(1);
            assertThat(listener.published).isEmpty();
            assertThat(listener.leaseLost).containsExactly(event.id());
            OutboxEvent held = stored(event);
            assertThat(held.status()).isEqualTo(EventStatus.IN_FLIGHT);
            assertThat(held.leaseId()).contains(otherLease);
            assertThat(held.sentAt()).isEmpty();
        }

        @Test
        @DisplayName("the new holder can still mark the event")
        void newHolderCanMark() {
            OutboxEvent event = append();
            takeOverDuringPublish();
            relay.runOnce();

            var marked = store.markPublished(otherLease, List.of(event.id()), clock.instant());

            assertThat(marked.marked()).containsExactly(event.id());
            assertThat(stored(event).status()).isEqualTo(EventStatus.SENT);
        }

        @Test
        @DisplayName("a failure is not recorded either: no attempt is spent by the old holder")
        void failureNotRecorded() {
            OutboxEvent event = append();
            publisher.thenRespond(event.id(), retryable("timeout"));
            takeOverDuringPublish();

            RelayResult result = relay.runOnce();

            assertThat(result.retried()).isZero();
            assertThat(result.leaseLost()).isEqualTo(1);
            assertThat(stored(event).attempts()).isZero();
            assertThat(stored(event).lastError()).isEmpty();
            assertThat(stored(event).leaseId()).contains(otherLease);
        }
    }

    @Nested
    @DisplayName("when the store fails")
    class StoreOutage {

        @Test
        @DisplayName("the tick throws the store's exception so the loop can back off, and nothing is published")
        void storeDown() {
            append();
            store.setAvailable(false);

            assertThatThrownBy(relay::runOnce).isInstanceOf(OutboxStoreException.class);
            assertThat(publisher.publishCalls()).isZero();
        }
    }

    @Nested
    @DisplayName("settings")
    class Settings {

        @Test
        @DisplayName("default to batches of 1,000 and a 30 s publish timeout")
        void defaults() {
            assertThat(RelayConfig.ofDefaults()).isEqualTo(new RelayConfig(1000, Duration.ofSeconds(30)));
        }

        @Test
        @DisplayName("default to batches of 500 with per-key ordering, which keeps a batch's keys from other relays")
        void perKeyDefaults() {
            Ordering perKey = Ordering.perKey(Ordering.AfterDeadLetter.CONTINUE);
            assertThat(RelayConfig.ofDefaults(perKey)).isEqualTo(new RelayConfig(500, Duration.ofSeconds(30), perKey));
            assertThat(RelayConfig.ofDefaults(Ordering.none())).isEqualTo(RelayConfig.ofDefaults());
            assertThat(RelayConfig.defaultBatchSize(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY)))
                    .isEqualTo(500);
            assertThat(RelayConfig.defaultBatchSize(Ordering.none())).isEqualTo(1000);
        }

        @Test
        @DisplayName("reject a batch size outside 1..10000, naming relay.batchSize")
        void badBatchSize() {
            assertThatThrownBy(() -> new RelayConfig(0, Duration.ofSeconds(1)))
                    .isInstanceOfSatisfying(
                            InvalidConfigurationException.class,
                            e -> assertThat(e.setting()).isEqualTo("relay.batchSize"));
            assertThatThrownBy(() -> new RelayConfig(10_001, Duration.ofSeconds(1)))
                    .isInstanceOfSatisfying(
                            InvalidConfigurationException.class,
                            e -> assertThat(e.setting()).isEqualTo("relay.batchSize"));
        }

        @Test
        @DisplayName("reject a publish timeout that is not positive, naming relay.publishTimeout")
        void badTimeout() {
            assertThatThrownBy(() -> new RelayConfig(10, Duration.ZERO))
                    .isInstanceOfSatisfying(
                            InvalidConfigurationException.class,
                            e -> assertThat(e.setting()).isEqualTo("relay.publishTimeout"));
        }
    }
}
