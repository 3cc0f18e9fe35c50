package dev.outboxjava.postgres;

/**
 * How an idle relay learns that new events were appended. Polling on the relay's interval always
 * runs as well: it is the source of truth, a wake-up only shortens the wait.
 */
public enum WakeUpMode {
    /**
     * A statement-level trigger on the outbox table calls {@code pg_notify(channel, '')} for every
     * appending statement; an {@link OutboxNotificationListener} wakes the relay at once. The price:
     * commits that append events serialize on PostgreSQL's notification queue (measured 20–30 % fewer
     * producer transactions per second at 4 clients). The default.
     */
    TRIGGER_NOTIFY,
    /**
     * No trigger (an existing one is dropped by {@code ensureSchema()}): the relay finds new events
     * by polling, or the application signals it in-process when appender and relay share a JVM.
     * Cheapest for producers; latency up to one poll interval.
     */
    NONE
}
