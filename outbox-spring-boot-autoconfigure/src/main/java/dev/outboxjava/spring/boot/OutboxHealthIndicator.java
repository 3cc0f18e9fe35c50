package dev.outboxjava.spring.boot;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.worker.OutboxWorker;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@code /actuator/health/outbox}: UP while the relay can make progress, by the same rule as the
 * standalone worker's readiness: the database answers, the broker answers or has failed for no longer
 * than {@code outbox.health.max-broker-outage}, no event the relay could publish has waited longer
 * than {@code outbox.health.max-lag}, and no transaction has held the database back longer than
 * {@code outbox.health.max-xmin-age}. The details carry the backlog.
 */
public final class OutboxHealthIndicator implements HealthIndicator {

    private final OutboxWorker worker;

    public OutboxHealthIndicator(OutboxWorker worker) {
        this.worker = Objects.requireNonNull(worker, "worker");
    }

    @Override
    public Health health() {
        HealthCheck readiness = worker.checkReadiness();
        Health.Builder health = readiness.healthy() ? Health.up() : Health.down();
        health.withDetail("readiness", readiness.detail()).withDetail("running", worker.isRunning());
        try {
            Backlog backlog = worker.backlog();
            health.withDetail("eligible", backlog.eligible())
                    .withDetail("retrying", backlog.retrying())
                    .withDetail("scheduled", backlog.scheduled())
                    .withDetail("held", backlog.held());
            backlog.oldestEligibleSince()
                    .ifPresent(since -> health.withDetail("oldestEligibleSince", since.toString()));
        } catch (RuntimeException e) {
            health.withDetail("backlog", "unavailable: " + e.getMessage());
        }
        return health.build();
    }
}
