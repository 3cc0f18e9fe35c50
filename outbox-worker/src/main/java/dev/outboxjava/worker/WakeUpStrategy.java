package dev.outboxjava.worker;

/**
 * How the standalone worker's idle relay learns of new events besides polling ({@code outbox.relay.wakeup}).
 * Polling on {@code outbox.relay.poll.interval} always runs: it is the source of truth.
 */
public enum WakeUpStrategy {
    /**
     * LISTEN on the outbox table's notification channel, where producers notify after commit
     * (PostgreSQL {@code WakeUpMode.NOTIFY_AFTER_COMMIT}) or a trigger fires. The default.
     */
    NOTIFY,
    /** Poll only. */
    POLLING
}
