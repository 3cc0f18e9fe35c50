package dev.outboxjava.testkit;

import dev.outboxjava.core.CloudEventAttributes;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.KeyHoldBack;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * A {@link Publisher} that acknowledges every event at once and remembers it, in publish order:
 * the broker of a unit test. Thread-safe; several relays may publish to one instance.
 *
 * <pre>{@code
 * RecordingPublisher publisher = new RecordingPublisher();
 * Relay relay = new Relay(store, publisher, RelayConfig.ofDefaults(), RetryPolicy.ofDefaults(), clock,
 *         RelayListener.NONE);
 * relay.runOnce();
 * assertThat(publisher.ofType("order.placed")).hasSize(1);
 * }</pre>
 *
 * <p>Every publish is recorded, including repeats: an event published twice (at least once!) appears
 * twice. Wrap it in a {@link FaultyPublisher} to make some publishes fail.
 */
public final class RecordingPublisher implements Publisher {

    private final List<OutboxEvent> published = new ArrayList<>();
    private int batches;
    private boolean closed;

    /** A publisher that has recorded nothing yet. */
    public RecordingPublisher() {}

    /**
     * Records the batch in order and acknowledges every event of it, but for what every publisher
     * refuses: an event whose own header has a name reserved for the CloudEvents envelope (a row
     * written without the builder) fails, not retryable, and holds back the later events of its key
     * ({@link KeyHoldBack}). After {@link #close()} nothing is
     * recorded and every event fails retryably, like a real publisher whose connection is gone.
     */
    @Override
    public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
        List<PublishOutcome> outcomes = new ArrayList<>(batch.size());
        synchronized (this) {
            if (closed) {
                return CompletableFuture.completedFuture(batch.stream()
                        .map(event -> PublishOutcome.failed(event.id(), "recording publisher is closed", true))
                        .toList());
            }
            if (!batch.isEmpty()) {
                batches++;
            }
            // the rules every publisher applies: an event that cannot be sent as a CloudEvent is refused,
            // and a failure holds back the later events of its key
            KeyHoldBack holdBack = KeyHoldBack.of(batch);
            for (int i = 0; i < batch.size(); i++) {
                OutboxEvent event = batch.get(i);
                Optional<PublishOutcome> heldBack = holdBack.check(i);
                Optional<String> refused = CloudEventAttributes.problem(event);
                if (heldBack.isPresent()) {
                    outcomes.add(heldBack.get());
                } else if (refused.isPresent()) {
                    holdBack.failed(i, refused.get());
                    outcomes.add(PublishOutcome.failed(event.id(), refused.get(), false));
                } else {
                    published.add(event);
                    outcomes.add(PublishOutcome.published(event.id()));
                }
            }
        }
        return CompletableFuture.completedFuture(outcomes);
    }

    /** Every event published so far, in publish order, duplicates included. */
    public synchronized List<OutboxEvent> published() {
        return List.copyOf(published);
    }

    /** The published events that match {@code filter}, in publish order. */
    public List<OutboxEvent> published(Predicate<? super OutboxEvent> filter) {
        return published().stream().filter(filter).toList();
    }

    /** The published events of one type, in publish order. */
    public List<OutboxEvent> ofType(String type) {
        Objects.requireNonNull(type, "type");
        return published(event -> event.type().equals(type));
    }

    /** The published events with one key, in publish order. */
    public List<OutboxEvent> withKey(String key) {
        Objects.requireNonNull(key, "key");
        return published(event -> event.key().filter(key::equals).isPresent());
    }

    /** The ids of the published events, in publish order; an id appears once per publish. */
    public List<UUID> publishedIds() {
        return published().stream().map(OutboxEvent::id).toList();
    }

    /** How many times the event with this id was published. */
    public long timesPublished(UUID eventId) {
        return published().stream().filter(event -> event.id().equals(eventId)).count();
    }

    /** How many events were published, counting repeats. */
    public synchronized int size() {
        return published.size();
    }

    /** How many non-empty batches were published. */
    public synchronized int batchCount() {
        return batches;
    }

    /** Forgets everything recorded so far. */
    public synchronized void clear() {
        published.clear();
        batches = 0;
    }

    /** Always healthy while open. */
    @Override
    public synchronized HealthCheck checkHealth() {
        return closed ? HealthCheck.down("recording publisher closed") : HealthCheck.up("recording publisher");
    }

    /** Whether {@link #close()} was called (a test can check that its code closes the publisher). */
    public synchronized boolean isClosed() {
        return closed;
    }

    /** Closes the publisher: the recording stays readable; later publishes fail retryably. */
    @Override
    public synchronized void close() {
        closed = true;
    }

    @Override
    public synchronized String toString() {
        return "RecordingPublisher[" + published.size() + " published]";
    }
}
