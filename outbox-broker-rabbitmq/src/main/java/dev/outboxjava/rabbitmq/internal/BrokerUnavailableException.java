package dev.outboxjava.rabbitmq.internal;

/** No usable connection or channel right now; the message says why, for the events' last error. */
public final class BrokerUnavailableException extends Exception {

    private static final long serialVersionUID = 1L;

    public BrokerUnavailableException(String message) {
        super(message);
    }
}
