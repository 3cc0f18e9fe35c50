package dev.outboxjava.testkit;

import static dev.outboxjava.testkit.TestEvents.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.time.ManualClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(OutboxExtension.class)
@DisplayName("OutboxExtension")
class OutboxExtensionTest {

    private InMemoryOutboxStore storeSeenByBeforeEach;

    @BeforeEach
    void remember(InMemoryOutboxStore store) {
        storeSeenByBeforeEach = store;
    }

    @Test
    @DisplayName("gives every parameter of one test the same wired set of fakes")
    void sharedWithinATest(
            InMemoryOutboxStore store,
            OutboxStore port,
            ManualClock clock,
            Relay relay,
            FaultyPublisher faulty,
            RecordingPublisher recording) {
        assertThat(port).isSameAs(store).isSameAs(storeSeenByBeforeEach);
        assertThat(faulty.delegate()).isSameAs(recording);
        assertThat(clock.instant()).isEqualTo(OutboxExtension.CLOCK_START);

        store.append(event(clock, "order.placed", "o-1", "{}"));
        faulty.failNext(1);
        relay.runOnce();

        assertThat(recording.published())
                .as("the relay publishes through the faulty publisher")
                .isEmpty();
        assertThat(store.countByStatus()).containsEntry(EventStatus.PENDING, 1L);
    }

    @RepeatedTest(2)
    @DisplayName("gives each test fresh fakes")
    void freshPerTest(InMemoryOutboxStore store, RecordingPublisher recording, Relay relay, ManualClock clock) {
        assertThat(store.all()).isEmpty();
        assertThat(recording.published()).isEmpty();
        assertThat(clock.instant()).isEqualTo(OutboxExtension.CLOCK_START);

        store.append(event(clock, "order.placed", "o-1", "{}"));
        clock.advance(java.time.Duration.ofMinutes(5));
        relay.runOnce();

        assertThat(recording.ofType("order.placed")).hasSize(1);
    }
}
