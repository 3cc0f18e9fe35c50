package dev.outboxjava.relayapp.internal;

import dev.outboxjava.core.OutboxException;

/** The HTTP server's port is taken: a setting to change, so the command line exits with 2. */
public final class PortInUseException extends OutboxException {

    private static final long serialVersionUID = 1L;

    public PortInUseException(String message) {
        super(message);
    }
}
