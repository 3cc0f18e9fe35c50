package dev.outboxjava.relayapp.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.worker.OutboxWorker;
import java.time.Instant;
import java.util.Objects;

/** The standalone process relaying one table: readiness shows the table's backlog by what it waits for. */
final class SingleTableWorker implements StandaloneWorker {

    private final OutboxWorker worker;

    SingleTableWorker(OutboxWorker worker) {
        this.worker = Objects.requireNonNull(worker, "worker");
    }

    @Override
    public void start() {
        worker.start();
    }

    @Override
    public void close() {
        worker.close();
    }

    @Override
    public boolean isRunning() {
        return worker.isRunning();
    }

    @Override
    public HealthCheck checkReadiness() {
        return worker.checkReadiness();
    }

    /**
     * The backlog behind the verdict: the events that wait by design (retrying, scheduled, held) are shown
     * beside the eligible ones and never decide the status.
     */
    @Override
    public void describeReadiness(ObjectNode body) {
        try {
            Backlog backlog = worker.backlog();
            ObjectNode figures = body.putObject("backlog");
            figures.put("eligible", backlog.eligible());
            figures.put(
                    "oldestEligibleWaitSeconds",
                    backlog.oldestEligibleWait(Instant.now()).toMillis() / 1000.0);
            backlog.oldestEligibleSince().ifPresent(since -> figures.put("oldestEligibleDueSince", since.toString()));
            figures.put("retrying", backlog.retrying());
            figures.put("scheduled", backlog.scheduled());
            figures.put("held", backlog.held());
            figures.put("pending", backlog.pending());
        } catch (RuntimeException e) {
            body.put("backlog", "unavailable: " + e.getMessage());
        }
    }
}
