package dev.outboxjava.testkit.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.EventFilter;
import dev.outboxjava.testkit.OutboxAssertions;
import dev.outboxjava.testkit.RecordingPublisher;
import org.junit.jupiter.api.Test;

/** The README's "fakes in unit tests" examples; kept here so they compile and pass. */
class FakesExampleTest {

    @Test
    void plainFakes() {
        // tag::plain[]
        ManualClock clock = ManualClock.startingAtEpochOf2024();
        InMemoryOutboxStore store = new InMemoryOutboxStore();
        RecordingPublisher broker = new RecordingPublisher();
        Relay relay =
                new Relay(store, broker, RelayConfig.ofDefaults(), RetryPolicy.ofDefaults(), clock, RelayListener.NONE);

        new OrderService(store::append, clock).placeOrder("order-7");
        relay.runOnce();

        OutboxEvent published = OutboxAssertions.awaitPublished(
                broker, EventFilter.ofType("order.placed").withKey("order-7").withPayloadContaining("order-7"));
        OutboxAssertions.awaitDrained(store);
        // end::plain[]
        assertThat(published.key()).contains("order-7");
    }
}
