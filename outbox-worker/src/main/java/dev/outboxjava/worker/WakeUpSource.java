package dev.outboxjava.worker;

/**
 * Something outside the worker that knows when new events arrive (PostgreSQL LISTEN/NOTIFY, a
 * message from another process, ...). The worker starts each source with its {@link OutboxWakeUp}
 * and closes what {@link #start} returned when it shuts down. Adapter modules contribute sources
 * with a Guice {@code Multibinder<WakeUpSource>}.
 */
public interface WakeUpSource {

    /**
     * Starts listening; calls {@code wakeUp.signal()} whenever new events may be due.
     *
     * @return stops listening when closed
     */
    AutoCloseable start(OutboxWakeUp wakeUp);

    /**
     * What signals this source passes on, for the worker's warning when they never come (see
     * {@link OutboxWorker}): e.g. "a NOTIFY on channel outbox_events after each commit".
     */
    default String expects() {
        return "signals from " + getClass().getSimpleName();
    }
}
