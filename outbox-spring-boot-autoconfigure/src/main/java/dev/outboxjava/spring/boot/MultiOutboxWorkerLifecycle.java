package dev.outboxjava.spring.boot;

import dev.outboxjava.worker.MultiOutboxWorker;
import java.util.Objects;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the {@link MultiOutboxWorker} of {@code outbox.tables} or {@code outbox.discovery.schema-pattern}
 * with the application context, in the phase of {@link OutboxWorkerLifecycle}: started once every bean is
 * ready, stopped after the web server's graceful shutdown and before the data source closes.
 */
public final class MultiOutboxWorkerLifecycle implements SmartLifecycle {

    private final MultiOutboxWorker worker;
    private volatile boolean running;

    public MultiOutboxWorkerLifecycle(MultiOutboxWorker worker) {
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

    /** Started and not stopped since. */
    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return OutboxWorkerLifecycle.PHASE;
    }
}
