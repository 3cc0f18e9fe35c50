package dev.outboxjava.core.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Relay with per-key ordering")
class RelayOrderingTest {

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final RetryPolicy retry =
            RetryPolicy.builder().initialDelay(Duration.ofSeconds(1)).jitter(0).build();

    private InMemoryOutboxStore store(Ordering.AfterDeadLetter afterDeadLetter) {
        return new InMemoryOutboxStore(CompletionMode.KEEP_SENT, Ordering.perKey(afterDeadLetter));
    }

    private Relay relay(InMemoryOutboxStore store, ScriptedPublisher publisher, Ordering.AfterDeadLetter after) {
        return new Relay(
                store,
                publisher,
                new RelayConfig(100, Duration.ofSeconds(5), Ordering.perKey(after)),
                retry,
                clock,
                RelayListener.NONE);
    }

    private OutboxEvent event(String key, int n) {
        return OutboxEvent.builder()
                .clock(clock)
                .type("t")
                .destination("d")
                .key(key)
                .payload(new byte[] {(byte) n})
                .maxAttempts(3)
                .build();
    }

    @Test
    @DisplayName(
            "only the acknowledged run before a key's first failure is sent; later events of the key go back untried")
    void contiguousPrefix() {
        InMemoryOutboxStore store = store(Ordering.AfterDeadLetter.HOLD_KEY);
        OutboxEvent a1 = event("a", 1);
        OutboxEvent a2 = event("a", 2);
        OutboxEvent a3 = event("a", 3);
        OutboxEvent b1 = event("b", 1);
        store.append(a1, a2, b1, a3);
        ScriptedPublisher publisher =
                new ScriptedPublisher().thenRespond(a2.id(), ScriptedPublisher.Response.retryable("broker hiccup"));

        RelayResult result =
                relay(store, publisher, Ordering.AfterDeadLetter.HOLD_KEY).runOnce();

        assertThat(result.published()).isEqualTo(2);
        assertThat(result.retried()).isEqualTo(1);
        assertThat(result.released()).isEqualTo(1);
        assertThat(store.find(a1.id()).orElseThrow().status()).isEqualTo(EventStatus.SENT);
        assertThat(store.find(b1.id()).orElseThrow().status()).isEqualTo(EventStatus.SENT);
        OutboxEvent retried = store.find(a2.id()).orElseThrow();
        assertThat(retried.status()).isEqualTo(EventStatus.PENDING);
        assertThat(retried.attempts()).isEqualTo(1);
        OutboxEvent released = store.find(a3.id()).orElseThrow();
        assertThat(released.status()).isEqualTo(EventStatus.PENDING);
        assertThat(released.attempts()).as("an untried event spends no attempt").isZero();
    }

    @Test
    @DisplayName(
            "an event acknowledged after its key's failure in the same batch is not marked sent: it goes back untried after the failure")
    void acknowledgedAfterFailureGoesBackUntried() {
        InMemoryOutboxStore store = store(Ordering.AfterDeadLetter.HOLD_KEY);
        OutboxEvent a1 = event("a", 1);
        OutboxEvent a2 = event("a", 2);
        store.append(a1, a2);
        ScriptedPublisher publisher =
                new ScriptedPublisher().thenRespond(a1.id(), ScriptedPublisher.Response.notRetryable("too large"));

        RelayResult result =
                relay(store, publisher, Ordering.AfterDeadLetter.HOLD_KEY).runOnce();

        assertThat(result.published()).isZero();
        assertThat(result.released()).isEqualTo(1);
        OutboxEvent released = store.find(a2.id()).orElseThrow();
        assertThat(released.status()).isEqualTo(EventStatus.PENDING);
        assertThat(released.attempts()).isZero();
    }

    @Test
    @DisplayName("without per-key ordering, an event the publisher held back goes back untried, spending no attempt")
    void heldBackByPublisherWithoutOrdering() {
        InMemoryOutboxStore store = new InMemoryOutboxStore(CompletionMode.KEEP_SENT, Ordering.none());
        OutboxEvent a1 = event("a", 1);
        OutboxEvent a2 = event("a", 2);
        store.append(a1, a2);
        ScriptedPublisher publisher = new ScriptedPublisher()
                .thenRespond(a1.id(), ScriptedPublisher.Response.retryable("broker hiccup"))
                .thenRespond(a2.id(), ScriptedPublisher.Response.heldBack("held back behind " + a1.id()));
        Relay relay = new Relay(
                store, publisher, new RelayConfig(100, Duration.ofSeconds(5)), retry, clock, RelayListener.NONE);

        RelayResult result = relay.runOnce();

        assertThat(result.retried()).isEqualTo(1);
        assertThat(result.released()).isEqualTo(1);
        OutboxEvent released = store.find(a2.id()).orElseThrow();
        assertThat(released.status()).isEqualTo(EventStatus.PENDING);
        assertThat(released.attempts()).as("a held-back event was never tried").isZero();
    }

    @Test
    @DisplayName(
            "under random failures every key reaches the broker complete and in order; a poisoned key stops at its head")
    void randomFailuresKeepOrder() {
        InMemoryOutboxStore store = store(Ordering.AfterDeadLetter.HOLD_KEY);
        List<OutboxEvent> all = new ArrayList<>();
        for (int n = 0; n < 20; n++) {
            for (String key : List.of("a", "b", "c", "d", "poison")) {
                all.add(event(key, n));
            }
        }
        store.append(all);
        OutboxEvent poisonHead = all.stream()
                .filter(e -> e.keyOrEmpty().equals("poison"))
                .findFirst()
                .orElseThrow();
        Random random = new Random(42);
        ScriptedPublisher publisher = new ScriptedPublisher()
                .alwaysRespond(poisonHead.id(), ScriptedPublisher.Response.notRetryable("poison"));
        all.stream()
                .filter(e -> !e.equals(poisonHead) && random.nextInt(10) == 0)
                .forEach(e -> publisher.thenRespond(e.id(), ScriptedPublisher.Response.retryable("flaky")));
        Relay relay = relay(store, publisher, Ordering.AfterDeadLetter.HOLD_KEY);

        for (int tick = 0; tick < 200; tick++) {
            relay.runOnce();
            clock.advance(Duration.ofSeconds(10));
        }

        List<UUID> sentOrder = publisher.batches().stream()
                .flatMap(List::stream)
                .map(OutboxEvent::id)
                .filter(id -> store.find(id).orElseThrow().status() == EventStatus.SENT)
                .distinct()
                .collect(Collectors.toList());
        for (String key : List.of("a", "b", "c", "d")) {
            List<UUID> expected = all.stream()
                    .filter(e -> e.keyOrEmpty().equals(key))
                    .map(OutboxEvent::id)
                    .toList();
            List<UUID> lastDeliveries = lastDeliveryOrder(publisher, key, store);
            assertThat(lastDeliveries).as("final delivery order of key %s", key).containsExactlyElementsOf(expected);
        }
        assertThat(store.find(poisonHead.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
        assertThat(all.stream()
                        .filter(e -> e.keyOrEmpty().equals("poison") && !e.equals(poisonHead))
                        .map(e -> store.find(e.id()).orElseThrow().status()))
                .containsOnly(EventStatus.PENDING);
        assertThat(sentOrder).hasSize(80);
    }

    /** The order in which the marked-sent publish of each event of {@code key} happened. */
    private static List<UUID> lastDeliveryOrder(ScriptedPublisher publisher, String key, InMemoryOutboxStore store) {
        List<UUID> order = new ArrayList<>();
        for (List<OutboxEvent> batch : publisher.batches()) {
            for (OutboxEvent event : batch) {
                if (event.keyOrEmpty().equals(key)) {
                    order.remove(event.id());
                    order.add(event.id());
                }
            }
        }
        order.removeIf(id -> store.find(id).orElseThrow().status() != EventStatus.SENT);
        return order;
    }
}
