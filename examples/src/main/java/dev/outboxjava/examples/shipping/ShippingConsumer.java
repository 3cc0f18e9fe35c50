package dev.outboxjava.examples.shipping;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shipping service's consumer loop on its own thread: poll a batch, apply it in one
 * transaction, then acknowledge it to the broker. A failure before the acknowledgement has the
 * broker deliver the batch again; the handler recognises what it already applied.
 *
 * <pre>{@code
 * try (ShippingConsumer consumer = new ShippingConsumer(stream, handler, ShippingConsumer.Listener.NONE)) {
 *     consumer.start();
 *     ...
 * }
 * }</pre>
 */
public final class ShippingConsumer implements AutoCloseable {

    /** Told about every applied batch, on the consumer thread. */
    @FunctionalInterface
    public interface Listener {
        Listener NONE = applied -> {};

        void onApplied(Applied applied);
    }

    private static final Logger log = LoggerFactory.getLogger(ShippingConsumer.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration FAILURE_PAUSE = Duration.ofMillis(500);

    private final EventStream stream;
    private final ShipmentHandler handler;
    private final Listener listener;
    private final Thread thread;
    private volatile boolean running = true;

    public ShippingConsumer(EventStream stream, ShipmentHandler handler, Listener listener) {
        this.stream = Objects.requireNonNull(stream, "stream");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.thread = new Thread(this::run, "shipping-consumer");
        thread.setDaemon(true);
    }

    /** Starts consuming. */
    public void start() {
        thread.start();
    }

    private void run() {
        boolean failing = false;
        while (running) {
            try {
                List<ReceivedEvent> batch = stream.poll(POLL);
                if (batch.isEmpty()) {
                    continue;
                }
                Applied applied = handler.apply(batch);
                stream.acknowledge();
                listener.onApplied(applied);
                if (failing) {
                    log.info("shipping consumer recovered");
                    failing = false;
                }
            } catch (RuntimeException e) {
                if (!running) {
                    break;
                }
                if (!failing) {
                    log.warn("shipping consumer failed; the batch will be delivered again: {}", e.toString());
                    failing = true;
                }
                try {
                    stream.redeliver();
                } catch (RuntimeException redeliverFailure) {
                    log.debug("asking for redelivery failed", redeliverFailure);
                }
                pause();
            }
        }
    }

    private void pause() {
        try {
            Thread.sleep(FAILURE_PAUSE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /** Stops the loop after its current batch and closes the stream. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(Duration.ofSeconds(10).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stream.close();
    }
}
