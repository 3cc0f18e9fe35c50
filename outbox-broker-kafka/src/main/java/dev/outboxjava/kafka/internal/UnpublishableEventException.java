package dev.outboxjava.kafka.internal;

import dev.outboxjava.core.OutboxException;

/** An event that no retry can publish, found before it reached the producer. */
final class UnpublishableEventException extends OutboxException {

    private static final long serialVersionUID = 1L;

    public UnpublishableEventException(String message) {
        super(message);
    }
}
