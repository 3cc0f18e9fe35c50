package dev.outboxjava.kafka.internal;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the Kafka producer: creates it on first use, and replaces it once it reported an error that
 * leaves it unusable (fenced, out-of-order sequence, closed). The broken instance is closed on a
 * thread of its own, because the error is often noticed inside one of its own callbacks, where a
 * blocking close is not allowed.
 */
public final class ProducerLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ProducerLifecycle.class);
    private static final AtomicInteger CLOSER_THREADS = new AtomicInteger();

    private final Function<Map<String, Object>, Producer<String, byte[]>> factory;
    private final Map<String, Object> properties;
    private final AtomicInteger created = new AtomicInteger();
    private Producer<String, byte[]> current;

    public ProducerLifecycle(
            Function<Map<String, Object>, Producer<String, byte[]>> factory, Map<String, Object> properties) {
        this.factory = factory;
        this.properties = properties;
    }

    /**
     * The producer to send with, created if there is none.
     *
     * @throws org.apache.kafka.common.KafkaException when the producer cannot be created
     */
    public synchronized Producer<String, byte[]> current() {
        if (current == null) {
            current = factory.apply(properties);
            int count = created.incrementAndGet();
            if (count > 1) {
                log.info("Kafka producer created anew (instance {} of this publisher)", count);
            }
        }
        return current;
    }

    /** The producer in use, without creating one. */
    public synchronized Optional<Producer<String, byte[]>> inUse() {
        return Optional.ofNullable(current);
    }

    /** Whether {@code producer} is still the one in use (it was not replaced). */
    public synchronized boolean isCurrent(Producer<String, byte[]> producer) {
        return current == producer;
    }

    /** How many producers this lifecycle created so far. */
    public int createdCount() {
        return created.get();
    }

    /**
     * Drops {@code broken} so that the next {@link #current()} creates a new producer, and closes it
     * in the background; records it had not sent fail in their callbacks. Does nothing if
     * {@code broken} was already replaced.
     */
    public void replace(Producer<String, byte[]> broken, String why) {
        synchronized (this) {
            if (current != broken) {
                return;
            }
            current = null;
        }
        log.warn("Kafka producer is unusable and will be replaced before the next send: {}", why);
        Thread closer = new Thread(
                () -> closeQuietly(broken, Duration.ZERO),
                "outbox-kafka-producer-closer-" + CLOSER_THREADS.incrementAndGet());
        closer.setDaemon(true);
        closer.start();
    }

    /** Closes the producer in use, letting records already handed over reach the broker for up to {@code timeout}. */
    public void close(Duration timeout) {
        Producer<String, byte[]> last;
        synchronized (this) {
            last = current;
            current = null;
        }
        if (last != null) {
            closeQuietly(last, timeout);
        }
    }

    private static void closeQuietly(Producer<String, byte[]> producer, Duration timeout) {
        try {
            producer.close(timeout);
        } catch (RuntimeException e) {
            log.debug("closing a Kafka producer failed: {}", e.toString());
        }
    }
}
