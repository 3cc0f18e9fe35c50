package dev.outboxjava.spring.boot;

import dev.outboxjava.worker.OutboxWorker;
import java.util.Objects;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the {@link OutboxWorker} with the application context: started once every bean is ready,
 * stopped on shutdown after the web server's graceful shutdown (requests still in flight may append)
 * and before the data source closes. Stopping lets the batches in flight finish within
 * {@code outbox.relay.shutdown-timeout} and releases the rest to pending; keep that below
 * {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s by default). A stopped worker starts again
 * on {@link #start()}.
 */
public final class OutboxWorkerLifecycle implements SmartLifecycle {

    /** Below the web server's graceful shutdown phase, so that it stops after the server. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2048;

    private final OutboxWorker worker;
    private volatile boolean running;

    public OutboxWorkerLifecycle(OutboxWorker worker) {
        this.worker = Objects.requireNonNull(worker, "worker");
    }

    @Override
    public void start() {
        worker.start();
        running = true;
    }

    @Override
    public void stop() {
        worker.stop();
        running = false;
    }

    /** Started and not stopped since (a loop that died is the health indicator's business, not the lifecycle's). */
    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
