package dev.outboxjava.spring.boot;

import dev.outboxjava.worker.Durations;
import dev.outboxjava.worker.MultiOutboxReadiness;
import dev.outboxjava.worker.MultiOutboxWorker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@code /actuator/health/outbox} of a worker of many outboxes ({@code outbox.tables} or
 * {@code outbox.discovery.schema-pattern}): UP while the broker answers (or has failed for no longer than
 * {@code outbox.health.max-broker-outage}) and no outbox's oldest eligible event has waited longer than
 * {@code outbox.health.max-lag}. An outbox that backs off on its own (its table missing, its destination
 * refusing) is named without making it DOWN: the others are relayed.
 *
 * <p>Details: {@code detail} (one sentence naming each outbox behind or backing off), {@code broker},
 * {@code outboxes} (each with its {@code schema}, {@code table}, {@code lag}, {@code behind} and, while it
 * backs off, {@code backingOff}), {@code maxLag} and {@code running}.
 */
public final class OutboxesHealthIndicator implements HealthIndicator {

    private final MultiOutboxWorker worker;

    public OutboxesHealthIndicator(MultiOutboxWorker worker) {
        this.worker = Objects.requireNonNull(worker, "worker");
    }

    @Override
    public Health health() {
        MultiOutboxReadiness readiness = worker.readiness();
        Health.Builder health = readiness.ready() ? Health.up() : Health.down();
        health.withDetail(
                "detail", OutboxHealthIndicator.spring(readiness.summary().detail()));
        Map<String, Object> broker = new LinkedHashMap<>();
        broker.put("status", readiness.broker().healthy() ? "UP" : "DOWN");
        broker.put("detail", readiness.broker().detail());
        health.withDetail("broker", broker);
        List<Map<String, Object>> outboxes = new ArrayList<>();
        for (MultiOutboxReadiness.OutboxState state : readiness.outboxes()) {
            Map<String, Object> outbox = new LinkedHashMap<>();
            outbox.put("schema", state.id().schema());
            outbox.put("table", state.id().table());
            outbox.put("lag", Durations.format(state.lag()));
            outbox.put("behind", state.behind());
            state.backingOff().ifPresent(reason -> outbox.put("backingOff", reason));
            outboxes.add(outbox);
        }
        return health.withDetail("outboxes", outboxes)
                .withDetail("maxLag", Durations.format(readiness.maxLag()))
                .withDetail("running", worker.isRunning())
                .build();
    }
}
