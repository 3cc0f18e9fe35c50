package dev.outboxjava.worker.internal;

import dev.outboxjava.core.relay.RelayResult;
import java.util.function.Supplier;

/**
 * Where a relay thread completes (awaits and marks) the batch it left in flight while it leases the
 * next one: the completion is begun before that lease and its result taken after it.
 */
public interface BatchCompleter extends AutoCloseable {

    /**
     * Completes on the relay thread itself, when the result is asked for: after the next lease, so the
     * lease and the marks take turns on one database session.
     */
    BatchCompleter ON_RELAY_THREAD = completion -> completion;

    /**
     * Begins {@code completion}.
     *
     * @return gives the completion's result, or throws what it threw, once it has run
     */
    Supplier<RelayResult> begin(Supplier<RelayResult> completion);

    /** Lets the completer's thread, if it has one, end once the work begun has run. */
    @Override
    default void close() {}
}
