package dev.outboxjava.testkit.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.EventFilter;
import dev.outboxjava.testkit.FaultyPublisher;
import dev.outboxjava.testkit.OutboxAssertions;
import dev.outboxjava.testkit.OutboxExtension;
import dev.outboxjava.testkit.RecordingPublisher;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The README's "fakes with the JUnit extension" example; kept here so it compiles and passes. */
// tag::extension[]
@ExtendWith(OutboxExtension.class)
class FakesWithExtensionExampleTest {

    @Test
    void aBrokerOutageDelaysTheEventButDoesNotLoseIt(
            InMemoryOutboxStore store,
            ManualClock clock,
            Relay relay,
            FaultyPublisher publisher,
            RecordingPublisher broker) {
        publisher.failNext(1); // the broker refuses one attempt
        new OrderService(store::append, clock).placeOrder("order-8");

        relay.runOnce(); // fails; retry scheduled 1 s later
        OutboxAssertions.assertNothingPublished(broker, EventFilter.ofKey("order-8"), Duration.ZERO);

        clock.advance(Duration.ofSeconds(1)); // the backoff passes: no sleeping
        relay.runOnce();
        OutboxAssertions.awaitPublished(
                broker, EventFilter.ofType("order.placed").withKey("order-8"));
        OutboxAssertions.awaitDrained(store);
        OutboxAssertions.assertNoDeadLetters(store);
    }

    @Test
    void aCrashAfterTheAckPublishesADuplicateWithTheSameId(
            InMemoryOutboxStore store,
            ManualClock clock,
            Relay relay,
            FaultyPublisher publisher,
            RecordingPublisher broker) {
        publisher.acknowledgeThenFail(1); // the broker has it; the relay hears "failed"
        new OrderService(store::append, clock).placeOrder("order-9");

        relay.runOnce();
        clock.advance(Duration.ofSeconds(1));
        relay.runOnce();

        List<OutboxEvent> copies = broker.withKey("order-9");
        assertThat(copies).hasSize(2);
        assertThat(copies.get(1).id()).isEqualTo(copies.get(0).id()); // consumers deduplicate by id
    }
}
// end::extension[]
