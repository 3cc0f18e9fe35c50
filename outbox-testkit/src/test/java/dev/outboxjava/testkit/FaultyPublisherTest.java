package dev.outboxjava.testkit;

import static dev.outboxjava.testkit.TestEvents.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.testkit.FaultyPublisher.Failure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("FaultyPublisher")
class FaultyPublisherTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final RecordingPublisher broker = new RecordingPublisher();
    private final FaultyPublisher publisher = FaultyPublisher.wrapping(broker);

    private Map<UUID, PublishOutcome> publish(OutboxEvent... events) throws Exception {
        return publisher.publish(List.of(events), TIMEOUT).get(10, TimeUnit.SECONDS).stream()
                .collect(Collectors.toMap(PublishOutcome::eventId, Function.identity()));
    }

    private static void assertFailed(PublishOutcome outcome, boolean retryable) {
        assertThat(outcome).isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
            assertThat(failed.retryable()).isEqualTo(retryable);
            assertThat(failed.reason()).contains("injected");
        });
    }

    @Test
    @DisplayName("without a scripted fault it passes every event to its delegate and reports the delegate's outcomes")
    void transparent() throws Exception {
        OutboxEvent a = event("order.placed", "o-1");
        OutboxEvent b = event("order.paid", "o-1");

        Map<UUID, PublishOutcome> outcomes = publish(a, b);

        assertThat(outcomes.values()).allSatisfy(o -> assertThat(o).isInstanceOf(PublishOutcome.Published.class));
        assertThat(broker.published()).containsExactly(a, b);
        assertThat(publisher.checkHealth().healthy()).isTrue();
    }

    @Nested
    @DisplayName("fail the next N")
    class FailNext {

        @Test
        @DisplayName("the next N events fail retryably, counted across batches, and never reach the broker")
        void countsEvents() throws Exception {
            publisher.failNext(3);
            OutboxEvent a = event("order.placed", "o-1");
            OutboxEvent b = event("order.placed", "o-2");
            OutboxEvent c = event("order.placed", "o-3");
            OutboxEvent d = event("order.placed", "o-4");

            Map<UUID, PublishOutcome> first = publish(a, b);
            Map<UUID, PublishOutcome> second = publish(c, d);

            assertFailed(first.get(a.id()), true);
            assertFailed(first.get(b.id()), true);
            assertFailed(second.get(c.id()), true);
            assertThat(second.get(d.id())).isInstanceOf(PublishOutcome.Published.class);
            assertThat(broker.published()).containsExactly(d);
        }

        @Test
        @DisplayName("a permanent failure is reported as not retryable")
        void permanent() throws Exception {
            publisher.failNext(1, Failure.PERMANENT);
            OutboxEvent a = event("order.placed", "o-1");

            assertFailed(publish(a).get(a.id()), false);
            assertThat(broker.published()).isEmpty();
        }
    }

    @Nested
    @DisplayName("fail by type or key")
    class ByRule {

        @Test
        @DisplayName("events of a failing type fail; the rest of their batch is published")
        void byType() throws Exception {
            publisher.failType("invoice.issued", Failure.PERMANENT);
            OutboxEvent invoice = event("invoice.issued", "o-1");
            OutboxEvent order = event("order.placed", "o-1");

            Map<UUID, PublishOutcome> outcomes = publish(invoice, order);

            assertFailed(outcomes.get(invoice.id()), false);
            assertThat(outcomes.get(invoice.id()).toString()).contains("type invoice.issued");
            assertThat(outcomes.get(order.id())).isInstanceOf(PublishOutcome.Published.class);
            assertThat(broker.published()).containsExactly(order);
        }

        @Test
        @DisplayName("events with a failing key fail, by exact key or by key predicate; events without a key pass")
        void byKey() throws Exception {
            publisher.failKey("o-1", Failure.RETRYABLE).failKeys(key -> key.startsWith("vip-"), Failure.PERMANENT);
            OutboxEvent one = event("order.placed", "o-1");
            OutboxEvent vip = event("order.placed", "vip-9");
            OutboxEvent two = event("order.placed", "o-2");
            OutboxEvent unkeyed = event("order.placed", null);

            Map<UUID, PublishOutcome> outcomes = publish(one, vip, two, unkeyed);

            assertFailed(outcomes.get(one.id()), true);
            assertFailed(outcomes.get(vip.id()), false);
            assertThat(broker.published()).containsExactly(two, unkeyed);
        }

        @Test
        @DisplayName("rules stay until healed")
        void healRemovesRules() throws Exception {
            publisher.failType("order.placed", Failure.RETRYABLE);
            OutboxEvent first = event("order.placed", "o-1");
            OutboxEvent again = event("order.placed", "o-1");
            assertFailed(publish(first).get(first.id()), true);
            assertFailed(publish(first).get(first.id()), true);

            publisher.heal();

            assertThat(publish(again).get(again.id())).isInstanceOf(PublishOutcome.Published.class);
            assertThat(broker.published()).containsExactly(again);
        }
    }

    @Nested
    @DisplayName("hang past the timeout")
    class Hang {

        @Test
        @DisplayName("a hanging publish never completes and reaches nobody until released; then the broker gets it")
        void hangsUntilReleased() throws Exception {
            publisher.hang();
            OutboxEvent a = event("order.placed", "o-1");

            CompletableFuture<List<PublishOutcome>> answer = publisher.publish(List.of(a), Duration.ofMillis(1));

            assertThat(answer).isNotDone();
            assertThat(publisher.hungBatchCount()).isEqualTo(1);
            assertThat(broker.published()).isEmpty();
            assertThat(publisher.checkHealth().healthy()).isFalse();

            publisher.releaseHung();

            assertThat(answer.get(10, TimeUnit.SECONDS)).containsExactly(PublishOutcome.published(a.id()));
            assertThat(broker.published()).containsExactly(a);
            assertThat(publisher.hungBatchCount()).isZero();
            assertThat(publisher.checkHealth().healthy()).isTrue();
        }

        @Test
        @DisplayName("closing completes hanging publishes as retryable failures and closes the delegate")
        void closeAbandonsHeld() throws Exception {
            publisher.hang();
            OutboxEvent a = event("order.placed", "o-1");
            CompletableFuture<List<PublishOutcome>> answer = publisher.publish(List.of(a), TIMEOUT);

            publisher.close();

            assertThat(answer.get(10, TimeUnit.SECONDS))
                    .singleElement()
                    .isInstanceOfSatisfying(PublishOutcome.Failed.class, f -> {
                        assertThat(f.retryable()).isTrue();
                        assertThat(f.reason()).contains("closed");
                    });
            assertThat(broker.published()).isEmpty();
            assertThat(broker.isClosed()).isTrue();
        }

        @Test
        @DisplayName("a late publish reaches the broker at once but answers only after its timeout has passed")
        void respondsLate() throws Exception {
            publisher.respondLate(Duration.ofMillis(300));
            OutboxEvent a = event("order.placed", "o-1");
            long start = System.nanoTime();

            CompletableFuture<List<PublishOutcome>> answer = publisher.publish(List.of(a), Duration.ofMillis(200));

            assertThat(broker.published()).containsExactly(a);
            assertThat(answer.get(10, TimeUnit.SECONDS)).containsExactly(PublishOutcome.published(a.id()));
            // the point of the fault: the answer came after the timeout the caller asked for
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(200));
        }
    }

    @Nested
    @DisplayName("acknowledge then report failure")
    class AcknowledgeThenFail {

        @Test
        @DisplayName("the broker has the event, yet the caller is told it failed retryably")
        void brokerHasIt() throws Exception {
            publisher.acknowledgeThenFail(1);
            OutboxEvent a = event("order.placed", "o-1");
            OutboxEvent b = event("order.placed", "o-2");

            Map<UUID, PublishOutcome> outcomes = publish(a, b);

            assertThat(broker.published()).containsExactly(a, b);
            assertThat(outcomes.get(a.id())).isInstanceOfSatisfying(PublishOutcome.Failed.class, f -> {
                assertThat(f.retryable()).isTrue();
                assertThat(f.reason()).contains("after the broker acknowledged");
            });
            assertThat(outcomes.get(b.id())).isInstanceOf(PublishOutcome.Published.class);
            assertThat(publisher.acknowledgedThenFailed()).containsExactly(a.id());
        }

        @Test
        @DisplayName("the beforeMark hook runs with the acknowledged events before the caller gets any outcome")
        void hookRunsInTheWindow() {
            List<String> sequence = new ArrayList<>();
            publisher
                    .failType("invoice.issued", Failure.RETRYABLE)
                    .beforeMark(acked -> sequence.add("hook saw "
                            + acked.stream().map(OutboxEvent::type).toList() + ", broker has " + broker.size()));
            OutboxEvent order = event("order.placed", "o-1");
            OutboxEvent invoice = event("invoice.issued", "o-1");

            publisher
                    .publish(List.of(order, invoice), TIMEOUT)
                    .thenRun(() -> sequence.add("caller got outcomes"))
                    .join();

            assertThat(sequence).containsExactly("hook saw [order.placed], broker has 1", "caller got outcomes");
        }
    }

    @Test
    @DisplayName("a delegate that throws is reported as a retryable failure per event, never thrown")
    void delegateThrows() throws Exception {
        FaultyPublisher overThrowing = FaultyPublisher.wrapping(new Publisher() {
            @Override
            public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
                throw new IllegalStateException("broken adapter");
            }

            @Override
            public HealthCheck checkHealth() {
                return HealthCheck.up("x");
            }

            @Override
            public void close() {}
        });
        OutboxEvent a = event("order.placed", "o-1");

        List<PublishOutcome> outcomes =
                overThrowing.publish(List.of(a), TIMEOUT).get(10, TimeUnit.SECONDS);

        assertThat(outcomes).singleElement().isInstanceOfSatisfying(PublishOutcome.Failed.class, f -> {
            assertThat(f.retryable()).isTrue();
            assertThat(f.reason()).contains("broken adapter");
        });
    }
}
