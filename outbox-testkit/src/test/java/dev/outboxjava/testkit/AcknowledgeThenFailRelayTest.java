package dev.outboxjava.testkit;

import static dev.outboxjava.testkit.TestEvents.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayResult;
import dev.outboxjava.core.relay.Sweeper;
import dev.outboxjava.core.relay.SweeperConfig;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The core relay against a publisher that loses the acknowledgement: duplicates, never losses. */
@ExtendWith(OutboxExtension.class)
@DisplayName("Relay with a crash between the broker's acknowledgement and the mark")
class AcknowledgeThenFailRelayTest {

    @Test
    @DisplayName("an acknowledged event reported as failed is published again with the same id, and nothing is lost")
    void duplicateNotLoss(
            InMemoryOutboxStore store,
            Relay relay,
            FaultyPublisher publisher,
            RecordingPublisher broker,
            ManualClock clock) {
        List<OutboxEvent> events = IntStream.range(0, 5)
                .mapToObj(n -> event(clock, "order.placed", "o-" + n, "{}"))
                .toList();
        store.append(events);
        publisher.acknowledgeThenFail(2);

        RelayResult first = relay.runOnce();

        assertThat(first.published()).isEqualTo(3);
        assertThat(first.retried()).isEqualTo(2);
        assertThat(broker.published()).hasSize(5);
        List<OutboxEvent> unlucky = events.subList(0, 2);
        assertThat(publisher.acknowledgedThenFailed())
                .containsExactlyElementsOf(unlucky.stream().map(OutboxEvent::id).toList());

        clock.advance(Duration.ofSeconds(1));
        RelayResult second = relay.runOnce();

        assertThat(second.published()).isEqualTo(2);
        for (OutboxEvent event : unlucky) {
            assertThat(broker.timesPublished(event.id()))
                    .as("publishes of %s", event.id())
                    .isEqualTo(2);
            assertThat(store.find(event.id()).orElseThrow().attempts()).isEqualTo(1);
        }
        for (OutboxEvent event : events) {
            assertThat(broker.timesPublished(event.id())).isPositive();
        }
        OutboxAssertions.awaitDrained(store);
        OutboxAssertions.assertNoDeadLetters(store);
        assertThat(store.countByStatus()).containsEntry(EventStatus.SENT, 5L);
    }

    @Test
    @DisplayName(
            "a relay that dies after the ack leaves the events in flight; after the lease expires they go out again, same id")
    void crashAfterAck(
            InMemoryOutboxStore store,
            Relay relay,
            Sweeper sweeper,
            FaultyPublisher publisher,
            RecordingPublisher broker,
            ManualClock clock) {
        OutboxEvent event = event(clock, "order.placed", "o-1", "{\"total\":12}");
        store.append(event);
        // the crash: the store becomes unreachable between the broker's ack and the relay's mark
        publisher.beforeMark(acknowledged -> store.setAvailable(false));

        assertThatThrownBy(relay::runOnce).isInstanceOf(OutboxStoreException.class);

        store.setAvailable(true);
        publisher.heal();
        assertThat(broker.publishedIds()).containsExactly(event.id());
        assertThat(store.find(event.id()).orElseThrow().status()).isEqualTo(EventStatus.IN_FLIGHT);
        assertThat(relay.runOnce().leased())
                .as("an in-flight event is not leased again before its lease expires")
                .isZero();

        clock.advance(SweeperConfig.DEFAULT_LEASE_TIMEOUT.plusSeconds(1));
        assertThat(sweeper.runOnce()).isEqualTo(1);
        relay.runOnce();

        assertThat(broker.publishedIds()).containsExactly(event.id(), event.id());
        OutboxEvent stored = store.find(event.id()).orElseThrow();
        assertThat(stored.status()).isEqualTo(EventStatus.SENT);
        assertThat(stored.attempts()).as("a reclaimed lease costs no attempt").isZero();
    }
}
