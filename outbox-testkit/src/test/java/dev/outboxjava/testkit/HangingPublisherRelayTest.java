package dev.outboxjava.testkit;

import static dev.outboxjava.testkit.TestEvents.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayResult;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The core relay against a broker that hangs past the publish timeout. Takes the relay's publish
 * timeout plus its grace period in real time (about 7 s): the relay really waits.
 */
@ExtendWith(OutboxExtension.class)
@DisplayName("Relay with a publisher that hangs past the timeout")
class HangingPublisherRelayTest {

    @Test
    @DisplayName(
            "the relay gives up and schedules a retry; when the stuck broker recovers, the retry duplicates, nothing is lost")
    void retriesAfterTimeout(
            InMemoryOutboxStore store,
            Relay relay,
            FaultyPublisher publisher,
            RecordingPublisher broker,
            ManualClock clock) {
        List<OutboxEvent> events =
                List.of(event(clock, "order.placed", "o-1", "{}"), event(clock, "order.placed", "o-2", "{}"));
        store.append(events);
        publisher.hang();

        RelayResult stuck = relay.runOnce();

        assertThat(stuck.retried()).isEqualTo(2);
        assertThat(store.find(events.get(0).id()).orElseThrow().lastError())
                .hasValueSatisfying(error -> assertThat(error).contains("not acknowledged within"));
        assertThat(broker.published()).isEmpty();

        publisher.releaseHung(); // the stuck broker takes the old batch after all
        clock.advance(Duration.ofSeconds(1));
        RelayResult retry = relay.runOnce();

        assertThat(retry.published()).isEqualTo(2);
        for (OutboxEvent event : events) {
            assertThat(broker.timesPublished(event.id())).isEqualTo(2);
        }
        assertThat(store.countByStatus()).containsEntry(EventStatus.SENT, 2L);
    }
}
