package dev.outboxjava.relayapp.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.worker.MultiOutboxReadiness;
import dev.outboxjava.worker.MultiOutboxWorker;
import java.util.Objects;

/** The standalone process relaying many outboxes: readiness shows each outbox's lag and backoff. */
final class ManyOutboxesWorker implements StandaloneWorker {

    private final MultiOutboxWorker worker;

    ManyOutboxesWorker(MultiOutboxWorker worker) {
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

    /** One entry per outbox relayed now: which it is, its lag, whether it is behind, why it backs off. */
    @Override
    public void describeReadiness(ObjectNode body) {
        MultiOutboxReadiness readiness = worker.readiness();
        ArrayNode outboxes = body.putArray("outboxes");
        for (MultiOutboxReadiness.OutboxState state : readiness.outboxes()) {
            ObjectNode outbox = outboxes.addObject();
            outbox.put("database", state.id().database());
            outbox.put("schema", state.id().schema());
            outbox.put("table", state.id().table());
            outbox.put("lagSeconds", state.lag().toMillis() / 1000.0);
            outbox.put("behind", state.behind());
            state.backingOff().ifPresent(reason -> outbox.put("backingOff", reason));
        }
    }
}
