package dev.outboxjava.kafka.internal;

import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.errors.InterruptException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a batch the moment it has been handed to the producer, instead of after {@code linger.ms}.
 *
 * <p>The relay hands a whole batch over at once, so nothing more is coming for it: lingering only
 * delays its last partition batches. {@link Producer#flush()} marks every buffered record ready, but
 * it blocks until they are acknowledged, so it runs here, on a thread of its own, and requests that
 * arrive while a flush is under way are folded into one more flush. The sender thread and the relay
 * threads never wait for it. While a flush is under way the producer sends what is handed over at
 * once anyway, so under a steady flow records go out as they come; {@code linger.ms} still groups the
 * records of one hand-over into one request.
 */
public final class BatchFlusher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BatchFlusher.class);

    private final Object lock = new Object();
    private final Thread thread;
    /** The producer to flush next; null while nothing was handed over since the last flush began. */
    private Producer<?, ?> requested;

    private boolean closed;

    public BatchFlusher(String threadName) {
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Records were handed to {@code producer}: flush it soon (now, or right after the flush under way). */
    public void request(Producer<?, ?> producer) {
        synchronized (lock) {
            if (!closed) {
                requested = producer;
                lock.notifyAll();
            }
        }
    }

    /** Stops the thread; a flush under way ends when its producer is closed. Does not wait. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            requested = null;
            lock.notifyAll();
        }
    }

    /** Whether the flushing thread still runs (it ends soon after {@link #close()}). */
    boolean isRunning() {
        return thread.isAlive();
    }

    private void run() {
        while (true) {
            Producer<?, ?> producer;
            synchronized (lock) {
                while (requested == null && !closed) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (closed) {
                    return;
                }
                producer = requested;
                requested = null;
            }
            try {
                producer.flush();
            } catch (InterruptException e) {
                return;
            } catch (RuntimeException e) {
                // A closed or broken producer: its records fail in their own callbacks; nothing to add.
                log.debug("flushing the Kafka producer failed: {}", e.toString());
            }
        }
    }
}
