package dev.outboxjava.core.port;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Hands events to a message broker and reports, per event, whether the broker acknowledged it.
 *
 * <p>An event counts as published only once the broker confirmed it durably (Kafka {@code acks=all},
 * RabbitMQ publisher confirms). One bad event never fails the batch: it gets its own
 * {@link PublishOutcome.Failed} and the others go on. Implementations never throw from
 * {@link #publish}: a broker outage is a retryable failure for each event.
 *
 * <p>Within a batch, events of one key keep their order under the {@link KeyHoldBack} rule: once an
 * event with a key failed or was not acknowledged, the later events of that key are not handed to
 * the broker, and are reported {@link PublishOutcome#heldBack held back} (never published) even if
 * the broker took them. Events of other keys go on.
 */
public interface Publisher extends AutoCloseable {

    /**
     * Publishes a batch asynchronously.
     *
     * @param batch   the events, in the order they should reach the broker
     * @param timeout how long to wait for acknowledgements; events not acknowledged by then complete
     *                as retryable failures
     * @return completes with exactly one outcome per event of the batch, in any order
     */
    CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout);

    /** Whether the broker is reachable now. */
    HealthCheck checkHealth();

    /** Releases connections and threads; in-flight publishes may complete as failures. */
    @Override
    void close();

    /**
     * Like {@link #close()}, spending at most about {@code timeout} (less if the publisher's own close
     * timeout is shorter): batches in flight get what is left of it, then connections are dropped
     * whatever the broker does. The worker calls this with what remains of its shutdown timeout, so
     * that one shutdown has one budget. The default calls {@link #close()}; publishers whose close can
     * wait for the broker override it.
     *
     * @param timeout the most the close may take; zero to drop everything at once
     */
    default void close(Duration timeout) {
        close();
    }
}
