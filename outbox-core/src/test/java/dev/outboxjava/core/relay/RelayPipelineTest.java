package dev.outboxjava.core.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Relay in two halves: lease and publish, then complete")
class RelayPipelineTest {

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final HeldPublisher publisher = new HeldPublisher();
    private final RetryPolicy retry =
            RetryPolicy.builder().initialDelay(Duration.ofSeconds(1)).jitter(0).build();

    private Relay relay(InMemoryOutboxStore store, Ordering ordering) {
        return new Relay(
                store,
                publisher,
                new RelayConfig(3, Duration.ofSeconds(5), ordering),
                retry,
                clock,
                RelayListener.NONE);
    }

    private List<OutboxEvent> append(InMemoryOutboxStore store, String... keys) {
        List<OutboxEvent> events = new ArrayList<>();
        for (String key : keys) {
            events.add(OutboxEvent.builder()
                    .clock(clock)
                    .type("t")
                    .destination("d")
                    .key(key)
                    .payload(new byte[] {1})
                    .build());
        }
        return store.append(events);
    }

    @Test
    @DisplayName("the next batch is leased while the previous one is still being published; completing marks each")
    void secondBatchWhileFirstInFlight() {
        InMemoryOutboxStore store = new InMemoryOutboxStore();
        append(store, "a", "b", "c", "d", "e", "f");
        Relay relay = relay(store, Ordering.none());

        Relay.Batch first = relay.leaseAndPublish();
        Relay.Batch second = relay.leaseAndPublish();

        assertThat(first.size()).isEqualTo(3);
        assertThat(second.size()).isEqualTo(3);
        assertThat(first.leaseId()).isNotEqualTo(second.leaseId());
        assertThat(publisher.pending).hasSize(2);
        assertThat(store.countByStatus().get(EventStatus.IN_FLIGHT)).isEqualTo(6);

        publisher.acknowledgeAll();
        RelayResult firstResult = relay.complete(first);
        assertThat(firstResult.published()).isEqualTo(3);
        assertThat(store.countByStatus().get(EventStatus.SENT)).isEqualTo(3);
        assertThat(relay.complete(second).published()).isEqualTo(3);
        assertThat(store.countByStatus().get(EventStatus.SENT)).isEqualTo(6);
    }

    @Test
    @DisplayName("with per-key ordering, a lease made while a key's batch is in flight takes none of that key's events")
    void perKeyWhileInFlight() {
        InMemoryOutboxStore store =
                new InMemoryOutboxStore(CompletionMode.KEEP_SENT, Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY));
        List<OutboxEvent> events = append(store, "a", "a", "a", "a", "b");
        Relay relay = relay(store, Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY));

        Relay.Batch first = relay.leaseAndPublish();
        Relay.Batch second = relay.leaseAndPublish();

        assertThat(first.size()).isEqualTo(3);
        assertThat(publisher.pending.get(0))
                .extracting(OutboxEvent::id)
                .containsExactly(
                        events.get(0).id(), events.get(1).id(), events.get(2).id());
        assertThat(publisher.pending.get(1))
                .extracting(OutboxEvent::id)
                .containsExactly(events.get(4).id());
        assertThat(second.size()).isEqualTo(1);

        publisher.acknowledgeAll();
        relay.complete(first);
        relay.complete(second);
        Relay.Batch third = relay.leaseAndPublish();
        assertThat(publisher.pending.get(2))
                .extracting(OutboxEvent::id)
                .containsExactly(events.get(3).id());
        publisher.acknowledgeAll();
        assertThat(relay.complete(third).published()).isEqualTo(1);
    }

    @Test
    @DisplayName("an empty lease completes as an idle tick without calling the publisher")
    void emptyLease() {
        Relay relay = relay(new InMemoryOutboxStore(), Ordering.none());

        Relay.Batch batch = relay.leaseAndPublish();

        assertThat(batch.isEmpty()).isTrue();
        assertThat(publisher.pending).isEmpty();
        assertThat(relay.complete(batch).leased()).isZero();
    }

    /** Hands out futures that complete only when the test says so. */
    private static final class HeldPublisher implements Publisher {
        final List<List<OutboxEvent>> pending = new ArrayList<>();
        private final List<CompletableFuture<List<PublishOutcome>>> futures = new ArrayList<>();

        @Override
        public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
            CompletableFuture<List<PublishOutcome>> future = new CompletableFuture<>();
            pending.add(batch);
            futures.add(future);
            return future;
        }

        void acknowledgeAll() {
            for (int i = 0; i < futures.size(); i++) {
                futures.get(i)
                        .complete(pending.get(i).stream()
                                .map(e -> PublishOutcome.published(e.id()))
                                .toList());
            }
        }

        @Override
        public HealthCheck checkHealth() {
            return HealthCheck.up("held");
        }

        @Override
        public void close() {}
    }
}
