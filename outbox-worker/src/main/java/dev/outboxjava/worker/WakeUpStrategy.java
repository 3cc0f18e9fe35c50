package dev.outboxjava.worker;

/**
 * How the standalone worker's idle relay learns of new events besides polling ({@code outbox.relay.wakeup}).
 * Polling on {@code outbox.relay.poll.interval} always runs: it is the source of truth.
 */
public enum WakeUpStrategy {
    /** LISTEN on the outbox table's notification channel (needs the schema's NOTIFY trigger). The default. */
    NOTIFY,
    /** Poll only. */
    POLLING
}
