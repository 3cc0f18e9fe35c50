package dev.outboxjava.worker;

import dev.outboxjava.core.HealthCheck;

/**
 * One more condition of the worker's readiness, besides "the database and the broker answer"
 * (e.g. the database health signals: lag, an old open transaction). {@link OutboxWorker#checkReadiness()}
 * is ready only when every check is. Contribute one with {@link OutboxWorker.Builder#readinessChecks}
 * or a Guice {@code Multibinder<ReadinessCheck>}.
 */
public interface ReadinessCheck {

    /** Checks now; a check that throws counts as DOWN. */
    HealthCheck check();

    /**
     * Called once when the worker starts (e.g. to begin polling); what it returns is closed when the
     * worker stops. Default: nothing to start.
     */
    default AutoCloseable start() {
        return () -> {};
    }
}
