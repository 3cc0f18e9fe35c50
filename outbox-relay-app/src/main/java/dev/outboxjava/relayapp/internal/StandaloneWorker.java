package dev.outboxjava.relayapp.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.worker.MultiOutboxWorker;
import dev.outboxjava.worker.OutboxWorker;

/**
 * What the standalone process runs and its HTTP server asks, whether it relays one table
 * ({@link OutboxWorker}) or many ({@link MultiOutboxWorker}).
 */
public interface StandaloneWorker extends AutoCloseable {

    /** Starts the loops. */
    void start();

    /** Stops the loops, closes the publisher and the pool; idempotent. */
    @Override
    void close();

    /** Liveness: every loop thread is alive. */
    boolean isRunning();

    /** Readiness, its detail naming what is wrong. */
    HealthCheck checkReadiness();

    /** Adds the figures behind the readiness to its JSON body (the backlog, or each outbox's lag). */
    void describeReadiness(ObjectNode body);

    /** The worker of one table. */
    static StandaloneWorker of(OutboxWorker worker) {
        return new SingleTableWorker(worker);
    }

    /** The worker of many outboxes. */
    static StandaloneWorker of(MultiOutboxWorker worker) {
        return new ManyOutboxesWorker(worker);
    }
}
