package dev.outboxjava.core.relay;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import java.time.Instant;

/**
 * Told what the relay did to each event, after the store accepted the mark. Metrics and tests hook
 * in here; every method has an empty default. Called on the relay's thread: keep it quick.
 */
public interface RelayListener {

    RelayListener NONE = new RelayListener() {};

    /** The broker acknowledged {@code event} and it is marked sent. */
    default void onPublished(OutboxEvent event, Instant acknowledgedAt) {}

    /**
     * A publish attempt of {@code event} failed; called before {@link #onRetryScheduled} or
     * {@link #onDeadLettered}, once the store accepted the mark.
     *
     * @param failure what the publisher reported, with whether it is retryable and whether the
     *                destination was unroutable
     */
    default void onFailed(OutboxEvent event, PublishOutcome.Failed failure) {}

    /** {@code event} failed and will be tried again at {@code nextAttemptAt}. */
    default void onRetryScheduled(OutboxEvent event, String reason, Instant nextAttemptAt) {}

    /** {@code event} failed for good and is now a dead letter. */
    default void onDeadLettered(OutboxEvent event, String reason, boolean retryable) {}

    /** {@code event} went back to pending untried. */
    default void onReleased(OutboxEvent event) {}

    /** The mark for {@code event} was refused: another relay owns it now. */
    default void onLeaseLost(OutboxEvent event) {}

    /** A tick finished. */
    default void onTick(RelayResult result) {}
}
