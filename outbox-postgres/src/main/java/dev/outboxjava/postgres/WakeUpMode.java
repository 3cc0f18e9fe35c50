package dev.outboxjava.postgres;

/**
 * How an idle relay learns that new events were appended. Polling on the relay's interval always
 * runs as well: it is the source of truth, a wake-up only shortens the wait. Relays in another
 * process LISTEN on {@link PostgresOutboxConfig#notifyChannel()} in both NOTIFY modes
 * ({@link OutboxNotificationListener}); the modes differ in who sends the notification and what it
 * costs the producers.
 */
public enum WakeUpMode {
    /**
     * The producer side notifies AFTER its commit: {@link TransactionalOutbox} (or your code, through
     * {@link OutboxNotifier#signal()}) hands the hint to a background thread that sends one coalesced
     * {@code pg_notify} from its own connection. No trigger on the table. Producers pay next to nothing
     * (measured within the noise of the benchmark's producer runs); appends made with {@link OutboxWriter}
     * on your own connection wake the relay only if you signal the notifier after committing, otherwise
     * at the next poll. The default.
     */
    NOTIFY_AFTER_COMMIT,
    /**
     * A statement-level trigger on the outbox table calls {@code pg_notify(channel, '')} for every
     * appending statement, whoever appends. The price: commits that append events serialize on
     * PostgreSQL's notification queue — 20–50 % fewer producer transactions per second at 4 clients
     * in our benchmarks (see BENCHMARKS.md).
     */
    TRIGGER_NOTIFY,
    /**
     * No trigger and no notification: the relay finds new events by polling, or the application
     * signals it in-process when appender and relay share a JVM. Latency up to one poll interval.
     */
    NONE
}
