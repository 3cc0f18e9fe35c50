package dev.outboxjava.core.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A relay abandoned on shutdown")
class RelayAbandonTest {

    /** Far longer than any test: only abandonment ends the wait. */
    private static final Duration PUBLISH_TIMEOUT = Duration.ofMinutes(5);

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final InMemoryOutboxStore store = new InMemoryOutboxStore();
    private final RecordingListener listener = new RecordingListener();
    private final List<CompletableFuture<List<PublishOutcome>>> publishes = new ArrayList<>();
    private final Relay relay = new Relay(
            store,
            new HangingPublisher(publishes),
            new RelayConfig(10, PUBLISH_TIMEOUT),
            RetryPolicy.ofDefaults(),
            clock,
            listener);

    private List<OutboxEvent> append(int count) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(OutboxEvent.builder()
                    .type("order.placed")
                    .destination("orders")
                    .key("order-" + i)
                    .payload(new byte[] {1})
                    .clock(clock)
                    .build());
        }
        return store.append(events);
    }

    private OutboxEvent stored(OutboxEvent event) {
        return store.find(event.id()).orElseThrow();
    }

    /** Completes {@code batch} on a thread of its own, returned once that thread waits for the broker. */
    private CompletableFuture<RelayResult> completeInBackground(Relay.Batch batch) throws InterruptedException {
        CompletableFuture<RelayResult> result = new CompletableFuture<>();
        Thread thread = new Thread(
                () -> {
                    try {
                        result.complete(relay.complete(batch));
                    } catch (RuntimeException | Error e) {
                        result.completeExceptionally(e);
                    }
                },
                "relay-under-test");
        thread.start();
        awaitWaiting(thread);
        return result;
    }

    private static void awaitWaiting(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime())
                    .as("thread %s waits", thread.getName())
                    .isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    @Test
    @DisplayName("stops awaiting the broker at once and returns the batch to pending untried: no attempt spent, "
            + "no failure, no lost lease")
    void releasesTheBatchItAwaits() throws Exception {
        List<OutboxEvent> events = append(3);
        Relay.Batch batch = relay.leaseAndPublish();
        CompletableFuture<RelayResult> completing = completeInBackground(batch);
        assertThat(completing).isNotDone();

        relay.abandonInFlight();

        RelayResult result = completing.get(10, TimeUnit.SECONDS);
        assertThat(result.leased()).isEqualTo(3);
        assertThat(result.released()).isEqualTo(3);
        assertThat(result.retried() + result.deadLettered() + result.published() + result.leaseLost())
                .isZero();
        assertThat(events).allSatisfy(event -> {
            assertThat(stored(event).status()).isEqualTo(EventStatus.PENDING);
            assertThat(stored(event).attempts()).isZero();
            assertThat(stored(event).lastError()).isEmpty();
            assertThat(stored(event).leaseId()).isEmpty();
        });
        assertThat(listener.retried).isEmpty();
        assertThat(listener.leaseLost).isEmpty();
    }

    @Test
    @DisplayName("a batch completed after abandonment is released without waiting")
    void releasesLaterBatchesAtOnce() {
        List<OutboxEvent> events = append(2);
        Relay.Batch batch = relay.leaseAndPublish();
        relay.abandonInFlight();

        RelayResult result = relay.complete(batch);

        assertThat(result.released()).isEqualTo(2);
        assertThat(events)
                .allSatisfy(event -> assertThat(stored(event).status()).isEqualTo(EventStatus.PENDING));
    }

    @Test
    @DisplayName("leases nothing any more")
    void leasesNothing() {
        append(2);
        relay.abandonInFlight();

        Relay.Batch batch = relay.leaseAndPublish();

        assertThat(batch.isEmpty()).isTrue();
        assertThat(relay.isAbandoned()).isTrue();
        assertThat(store.countByStatus().get(EventStatus.PENDING)).isEqualTo(2);
        assertThat(publishes).isEmpty();
    }

    @Test
    @DisplayName("does not report a lease as lost when the worker released the batch first")
    void releasedByTheWorkerIsNotLost() throws Exception {
        List<OutboxEvent> events = append(2);
        Relay.Batch batch = relay.leaseAndPublish();
        CompletableFuture<RelayResult> completing = completeInBackground(batch);
        // the worker's own release races the relay thread's
        store.release(batch.leaseId(), events.stream().map(OutboxEvent::id).toList(), clock.instant());

        relay.abandonInFlight();

        RelayResult result = completing.get(10, TimeUnit.SECONDS);
        assertThat(result.leaseLost()).isZero();
        assertThat(listener.leaseLost).isEmpty();
        assertThat(events)
                .allSatisfy(event -> assertThat(stored(event).status()).isEqualTo(EventStatus.PENDING));
    }

    @Test
    @DisplayName("marks a batch the broker acknowledged before abandonment, and keeps a refused mark quiet")
    void acknowledgedBatchIsMarked() throws Exception {
        List<OutboxEvent> events = append(2);
        Relay.Batch batch = relay.leaseAndPublish();
        // the broker acknowledged the first event; the worker released the second meanwhile
        store.release(batch.leaseId(), List.of(events.get(1).id()), clock.instant());
        relay.abandonInFlight();
        publishes
                .get(0)
                .complete(events.stream()
                        .map(event -> PublishOutcome.published(event.id()))
                        .toList());

        RelayResult result = relay.complete(batch);

        assertThat(result.published()).isEqualTo(1);
        assertThat(result.leaseLost()).isZero();
        assertThat(listener.leaseLost).isEmpty();
        assertThat(stored(events.get(0)).status()).isEqualTo(EventStatus.SENT);
        assertThat(stored(events.get(1)).status()).isEqualTo(EventStatus.PENDING);
    }

    @Test
    @DisplayName("an interrupted wait (a shutdown that ran out of time) also releases the batch, spending no attempt")
    void interruptedWaitReleases() throws Exception {
        List<OutboxEvent> events = append(2);
        Relay.Batch batch = relay.leaseAndPublish();
        CompletableFuture<RelayResult> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> result.complete(relay.complete(batch)));
        thread.start();
        awaitWaiting(thread);

        thread.interrupt();

        assertThat(result.get(10, TimeUnit.SECONDS).released()).isEqualTo(2);
        assertThat(events).allSatisfy(event -> {
            assertThat(stored(event).status()).isEqualTo(EventStatus.PENDING);
            assertThat(stored(event).attempts()).isZero();
        });
        assertThat(listener.leaseLost).isEmpty();
    }

    /** Hands every batch a future that only the test completes. */
    private static final class HangingPublisher implements dev.outboxjava.core.port.Publisher {
        private final List<CompletableFuture<List<PublishOutcome>>> publishes;

        HangingPublisher(List<CompletableFuture<List<PublishOutcome>>> publishes) {
            this.publishes = publishes;
        }

        @Override
        public synchronized CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
            CompletableFuture<List<PublishOutcome>> future = new CompletableFuture<>();
            publishes.add(future);
            return future;
        }

        @Override
        public dev.outboxjava.core.HealthCheck checkHealth() {
            return dev.outboxjava.core.HealthCheck.up("test");
        }

        @Override
        public void close() {}
    }
}
