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

    /** The broker acknowledged the event. */
    record Published(UUID eventId) implements PublishOutcome {
        public Published {
            Objects.requireNonNull(eventId, "eventId");
        }
    }

    /**
     * The broker did not take the event.
     *
     * @param reason    what went wrong, for the event's last error and the logs
     * @param retryable whether trying again later can help (broker down, timeout) or not (too large,
     *                  invalid destination, not authorized)
     */
    record Failed(UUID eventId, String reason, boolean retryable) implements PublishOutcome {
        public Failed {
            Objects.requireNonNull(eventId, "eventId");
            Objects.requireNonNull(reason, "reason");
        }
    }
}
