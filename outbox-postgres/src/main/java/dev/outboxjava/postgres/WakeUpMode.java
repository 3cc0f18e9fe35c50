package dev.outboxjava.postgres;

/**
 * How an idle relay learns that new events were appended: ONE setting, read by the producer side
 * ({@link TransactionalOutbox}, the schema's trigger) and by the worker (whether it LISTENs, what it
 * expects). Polling on the relay's interval always runs as well: it is the source of truth, a
 * wake-up only shortens the wait. Relays LISTEN on {@link PostgresOutboxConfig#notifyChannel()} in
 * both NOTIFY modes ({@link OutboxNotificationListener}); the modes differ in who sends the
 * notification and what it costs the producers. A worker whose wake-up never arrives (appends made
 * without the signal the mode expects) says so once in its log.
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
     * Appender and relay share a JVM: after each commit that appended events the application signals
     * the worker's in-process wake-up ({@code OutboxWorker.wakeUp().signal()}; the Spring Boot starter
     * does it for you). No notification through the database, no trigger, no listening connection:
     * the cheapest wake-up, but relays in other processes only poll.
     */
    IN_PROCESS,
    /**
     * No trigger and no notification: the relay finds new events by polling. Latency up to one poll
     * interval.
     */
    NONE;

    /** Whether relays LISTEN on the table's channel in this mode. */
    public boolean listens() {
        return this == NOTIFY_AFTER_COMMIT || this == TRIGGER_NOTIFY;
    }
}
