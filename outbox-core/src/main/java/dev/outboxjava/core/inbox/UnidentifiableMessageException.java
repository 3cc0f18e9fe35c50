package dev.outboxjava.core.inbox;

import dev.outboxjava.core.OutboxException;

/**
 * A received message carries no usable id (missing, blank, or longer than
 * {@value InboxKey#MAX_MESSAGE_ID_LENGTH} characters), so the inbox cannot tell a redelivery from
 * a new message. Outbox events always carry one (the CloudEvents id); a message without one was
 * published by something else and needs an operator's decision.
 */
public final class UnidentifiableMessageException extends OutboxException {

    private static final long serialVersionUID = 1L;

    public UnidentifiableMessageException(String message) {
        super(message);
    }
}
