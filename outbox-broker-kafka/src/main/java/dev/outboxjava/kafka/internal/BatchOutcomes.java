package dev.outboxjava.kafka.internal;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.KeyHoldBack;
import dev.outboxjava.core.port.PublishOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The outcomes of one batch, filled in from several threads (the sender, producer callbacks, the
 * timeout): the first outcome recorded for an event wins, and the batch completes when every event
 * has one. Holds the event ids and keys only, not the events, so a long timeout keeps no payloads alive.
 *
 * <p>The batch reports under the per-key hold-back rule ({@link KeyHoldBack}): an event after a
 * failure of its key is reported held back, even when the broker acknowledged it.
 */
public final class BatchOutcomes {

    private final UUID[] eventIds;
    private final AtomicReferenceArray<PublishOutcome> outcomes;
    private final AtomicInteger missing;
    private final KeyHoldBack holdBack;
    private final CompletableFuture<List<PublishOutcome>> result = new CompletableFuture<>();

    public BatchOutcomes(List<OutboxEvent> batch) {
        this.eventIds = new UUID[batch.size()];
        for (int i = 0; i < eventIds.length; i++) {
            eventIds[i] = batch.get(i).id();
        }
        this.outcomes = new AtomicReferenceArray<>(eventIds.length);
        this.missing = new AtomicInteger(eventIds.length);
        this.holdBack = KeyHoldBack.of(batch);
        if (eventIds.length == 0) {
            result.complete(List.of());
        }
    }

    /** Completes with one outcome per event once all are known. */
    public CompletableFuture<List<PublishOutcome>> result() {
        return result;
    }

    /** Whether every event has its outcome. */
    public boolean isDone() {
        return result.isDone();
    }

    /** The outcome of the event at {@code index}, or {@code null} while it is unknown. */
    public PublishOutcome outcome(int index) {
        return outcomes.get(index);
    }

    /**
     * Whether the event at {@code index} is held back by a failure of an earlier event of its key
     * recorded so far; if so, records it as held back (unless it already has an outcome).
     */
    public boolean holdBackIfKeyFailed(int index) {
        Optional<PublishOutcome> heldBack = holdBack.check(index);
        heldBack.ifPresent(outcome -> record(index, outcome));
        return heldBack.isPresent();
    }

    /** Records that the event at {@code index} was acknowledged (unless it already has an outcome). */
    public void published(int index) {
        record(index, PublishOutcome.published(eventIds[index]));
    }

    /** Records a failure for the event at {@code index} (unless it already has an outcome). */
    public void failed(int index, String reason, boolean retryable) {
        record(index, PublishOutcome.failed(eventIds[index], reason, retryable));
    }

    /** Records that the event at {@code index} has a destination that does not exist (unless it has an outcome). */
    public void unroutable(int index, String reason) {
        record(index, PublishOutcome.unroutable(eventIds[index], reason));
    }

    /** Records a retryable failure for every event from {@code fromIndex} on that has no outcome yet. */
    public void failRemaining(int fromIndex, String reason) {
        for (int i = fromIndex; i < eventIds.length && !isDone(); i++) {
            if (outcomes.get(i) == null) {
                failed(i, reason, true);
            }
        }
    }

    private void record(int index, PublishOutcome outcome) {
        if (!outcomes.compareAndSet(index, null, outcome)) {
            return;
        }
        if (outcome instanceof PublishOutcome.Failed failed) {
            holdBack.failed(index, failed.reason());
        }
        if (missing.decrementAndGet() == 0) {
            List<PublishOutcome> all = new ArrayList<>(eventIds.length);
            for (int i = 0; i < eventIds.length; i++) {
                all.add(outcomes.get(i));
            }
            result.complete(holdBack.apply(all));
        }
    }
}
