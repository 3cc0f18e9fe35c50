package dev.outboxjava.examples.shipping;

import java.time.Duration;
import java.util.List;

/**
 * A broker subscription as the shipping service sees it: batches of events in, acknowledgements out.
 * Not thread-safe: one consumer thread polls, acknowledges and rewinds.
 */
public interface EventStream extends AutoCloseable {

    /** The next events, waiting up to {@code timeout}; empty when none arrived. */
    List<ReceivedEvent> poll(Duration timeout);

    /** Everything returned by {@link #poll} so far is processed: the broker may forget it. */
    void acknowledge();

    /** Processing of the unacknowledged events failed: have the broker deliver them again. */
    void redeliver();

    /** Leaves the subscription; unacknowledged events are delivered again to the next subscriber. */
    @Override
    void close();
}
