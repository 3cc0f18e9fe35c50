package dev.outboxjava.core.relay;

import static dev.outboxjava.core.relay.ScriptedPublisher.Response.retryable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.ForwardingOutboxStore;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A relay whose mark fails on a database blip")
class RelayMarkRetryTest {

    private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(5);

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final InMemoryOutboxStore memory = new InMemoryOutboxStore();
    private final BlippingStore store = new BlippingStore(memory);
    private final ScriptedPublisher publisher = new ScriptedPublisher();
    private final RecordingListener listener = new RecordingListener();

    private Relay relay(Duration markRetryTimeout) {
        return new Relay(
                store,
                publisher,
                new RelayConfig(10, PUBLISH_TIMEOUT).withMarkRetryTimeout(markRetryTimeout),
                RetryPolicy.ofDefaults(),
                clock,
                listener);
    }

    private List<OutboxEvent> append(int count) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(OutboxEvent.builder()
                    .type("order.placed")
                    .destination("orders")
                    .payload(new byte[] {1})
                    .clock(clock)
                    .build());
        }
        return memory.append(events);
    }

    private OutboxEvent stored(OutboxEvent event) {
        return memory.find(event.id()).orElseThrow();
    }

    @Test
    @DisplayName(
            "tries the mark again under the same lease until it lands: the published batch is sent, not re-published")
    void retriesUntilTheMarkLands() {
        List<OutboxEvent> events = append(3);
        store.failNextMarks(2, false);

        RelayResult result = relay(Duration.ofSeconds(10)).runOnce();

        assertThat(result.published()).isEqualTo(3);
        assertThat(store.markAttempts.get()).isEqualTo(3);
        assertThat(store.leaseIdsOfMarks).hasSize(3).containsOnly(store.leaseIdsOfMarks.get(0));
        assertThat(events)
                .allSatisfy(event -> assertThat(stored(event).status()).isEqualTo(EventStatus.SENT));
        assertThat(listener.published).hasSize(3);
        assertThat(listener.leaseLost).isEmpty();
        assertThat(publisher.publishCalls()).isEqualTo(1);
    }

    @Test
    @DisplayName("a mark whose first try committed but whose answer was lost counts as marked, not as a lost lease")
    void lostAnswerIsNotALostLease() {
        List<OutboxEvent> events = append(2);
        store.failNextMarks(1, true);

        RelayResult result = relay(Duration.ofSeconds(10)).runOnce();

        assertThat(result.published()).isEqualTo(2);
        assertThat(result.leaseLost()).isZero();
        assertThat(listener.leaseLost).isEmpty();
        assertThat(events)
                .allSatisfy(event -> assertThat(stored(event).status()).isEqualTo(EventStatus.SENT));
    }

    @Test
    @DisplayName("retries a failure's mark too, so the attempt is counted once")
    void retriesARetryMark() {
        List<OutboxEvent> events = append(1);
        publisher.thenRespond(events.get(0).id(), retryable("broker said no"));
        store.failNextMarks(1, false);

        RelayResult result = relay(Duration.ofSeconds(10)).runOnce();

        assertThat(result.retried()).isEqualTo(1);
        assertThat(stored(events.get(0)).attempts()).isEqualTo(1);
        assertThat(stored(events.get(0)).status()).isEqualTo(EventStatus.PENDING);
    }

    @Test
    @DisplayName("gives up after the mark retry timeout and throws the store's failure; the events stay in flight")
    void givesUpWhenTheTimeoutRunsOut() {
        List<OutboxEvent> events = append(2);
        store.failNextMarks(Integer.MAX_VALUE, false);

        assertThatThrownBy(() -> relay(Duration.ofMillis(400)).runOnce()).isInstanceOf(OutboxStoreException.class);

        assertThat(store.markAttempts.get()).as("tried again, but not for ever").isBetween(2, 4);
        assertThat(events)
                .allSatisfy(event -> assertThat(stored(event).status()).isEqualTo(EventStatus.IN_FLIGHT));
    }

    @Test
    @DisplayName("with a mark retry timeout of zero, does not try again")
    void zeroMeansNoRetry() {
        append(1);
        store.failNextMarks(1, false);

        assertThatThrownBy(() -> relay(Duration.ZERO).runOnce()).isInstanceOf(OutboxStoreException.class);

        assertThat(store.markAttempts.get()).isEqualTo(1);
    }

    @Test
    @DisplayName("stops retrying at once when abandoned on shutdown")
    void abandonmentEndsTheRetries() throws Exception {
        append(1);
        store.failNextMarks(Integer.MAX_VALUE, false);
        Relay relay = relay(Duration.ofMinutes(5));
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                relay.runOnce();
                failure.complete(null);
            } catch (RuntimeException e) {
                failure.complete(e);
            }
        });
        thread.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (store.markAttempts.get() < 2) {
            assertThat(System.nanoTime()).as("the mark is being retried").isLessThan(deadline);
            Thread.sleep(5);
        }

        relay.abandonInFlight();

        assertThat(failure.get(5, TimeUnit.SECONDS)).isInstanceOf(OutboxStoreException.class);
    }

    @Test
    @DisplayName("settings: default to 10 s and reject a negative timeout, naming relay.markRetryTimeout")
    void settings() {
        assertThat(RelayConfig.ofDefaults().markRetryTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThatThrownBy(() -> RelayConfig.ofDefaults().withMarkRetryTimeout(Duration.ofMillis(-1)))
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("relay.markRetryTimeout"));
    }

    /** Fails the next marks as a database blip would: before the statement, or after it committed. */
    private static final class BlippingStore extends ForwardingOutboxStore {
        final AtomicInteger markAttempts = new AtomicInteger();
        final List<UUID> leaseIdsOfMarks = new ArrayList<>();
        private int failuresLeft;
        private boolean afterCommit;

        BlippingStore(InMemoryOutboxStore delegate) {
            super(delegate);
        }

        synchronized void failNextMarks(int count, boolean committedBeforeFailing) {
            failuresLeft = count;
            afterCommit = committedBeforeFailing;
        }

        private synchronized MarkResult blip(UUID leaseId, java.util.function.Supplier<MarkResult> mark) {
            markAttempts.incrementAndGet();
            leaseIdsOfMarks.add(leaseId);
            if (failuresLeft > 0) {
                failuresLeft--;
                if (afterCommit) {
                    var unused = mark.get();
                }
                throw new OutboxStoreException("connection reset (a database blip)");
            }
            return mark.get();
        }

        @Override
        public MarkResult markPublished(UUID leaseId, Collection<UUID> eventIds, Instant now) {
            return blip(leaseId, () -> super.markPublished(leaseId, eventIds, now));
        }

        @Override
        public MarkResult markRetry(UUID leaseId, Collection<RetryMark> marks, Instant now) {
            return blip(leaseId, () -> super.markRetry(leaseId, marks, now));
        }
    }
}
