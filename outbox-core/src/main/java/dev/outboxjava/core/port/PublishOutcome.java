package dev.outboxjava.core.port;

import java.util.Objects;
import java.util.UUID;

/** What happened to one event of a published batch. */
public sealed interface PublishOutcome {

    /** The event this outcome is about. */
    UUID eventId();

    static PublishOutcome published(UUID eventId) {
        return new Published(eventId);
    }

    static PublishOutcome failed(UUID eventId, String reason, boolean retryable) {
        return new Failed(eventId, reason, retryable);
    }

    /**
     * The event's destination does not exist or routes it nowhere (a missing RabbitMQ exchange, a
     * returned unroutable message, a Kafka topic that does not exist). Retryable, since the destination
     * may be created, but within the retry policy's own small budget for unroutable events.
     */
    static PublishOutcome unroutable(UUID eventId, String reason) {
        return new Failed(eventId, reason, true, true);
    }

    /**
     * The event was held back by {@link KeyHoldBack}: an earlier event of its key in the same batch
     * failed or was not acknowledged. Whether or not the broker took it, it does not count as
     * published; it goes back to pending untried (no attempt spent) and is published again after
     * the event that held it back.
     */
    static PublishOutcome heldBack(UUID eventId, String reason) {
        return new Failed(eventId, reason, true, false, true);
    }

    /** The broker acknowledged the event. */
    record Published(UUID eventId) implements PublishOutcome {
        public Published {
            Objects.requireNonNull(eventId, "eventId");
        }
    }

    /**
     * The broker did not take the event.
     *
     * @param reason     what went wrong, for the event's last error and the logs
     * @param retryable  whether trying again later can help (broker down, timeout) or not (too large,
     *                   invalid destination, not authorized)
     * @param unroutable whether the destination does not exist or routes the event nowhere; such an
     *                   event is dead-lettered after {@link dev.outboxjava.core.RetryPolicy#unroutableMaxAttempts()}
     * @param heldBack   whether the event was only held back behind an earlier event of its key
     *                   ({@link KeyHoldBack}); the relay returns it to pending without spending an attempt
     */
    record Failed(UUID eventId, String reason, boolean retryable, boolean unroutable, boolean heldBack)
            implements PublishOutcome {
        public Failed {
            Objects.requireNonNull(eventId, "eventId");
            Objects.requireNonNull(reason, "reason");
        }

        /** A failure of the event itself, about routing or not. */
        public Failed(UUID eventId, String reason, boolean retryable, boolean unroutable) {
            this(eventId, reason, retryable, unroutable, false);
        }

        /** A failure that is not about routing. */
        public Failed(UUID eventId, String reason, boolean retryable) {
            this(eventId, reason, retryable, false);
        }
    }
}
