package dev.outboxjava.worker;

import dev.outboxjava.core.HealthCheck;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The worker's readiness, part by part, for health endpoints that show fields rather than one sentence:
 * {@link OutboxWorker#readiness()}. {@link #summary()} is the sentence {@link OutboxWorker#checkReadiness()}
 * returns.
 *
 * @param ready          whether the worker can make progress: the database answers, the broker answers or
 *                       has been down for less than {@link #maxBrokerOutage}, and every extra check passes
 * @param database       the store's health check
 * @param broker         the publisher's health check
 * @param brokerDownFor  how long the broker has failed its checks without a pause; empty while it answers
 * @param maxBrokerOutage how long the broker may be down before the worker is not ready
 * @param checks         the extra readiness checks (e.g. the database signals: lag, open transactions), in order
 */
public record Readiness(
        boolean ready,
        HealthCheck database,
        HealthCheck broker,
        Optional<Duration> brokerDownFor,
        Duration maxBrokerOutage,
        List<HealthCheck> checks) {

    public Readiness {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(broker, "broker");
        Objects.requireNonNull(brokerDownFor, "brokerDownFor");
        Objects.requireNonNull(maxBrokerOutage, "maxBrokerOutage");
        checks = List.copyOf(checks);
    }

    /** Whether the broker part passes: it answers, or has been down for less than {@link #maxBrokerOutage}. */
    public boolean brokerReady() {
        return broker.healthy()
                || brokerDownFor
                        .map(down -> down.compareTo(maxBrokerOutage) < 0)
                        .orElse(false);
    }

    /** The whole as one health check, its detail naming each part (the setting as the worker spells it). */
    public HealthCheck summary() {
        StringBuilder detail = new StringBuilder("database: ")
                .append(database.healthy() ? "UP" : "DOWN")
                .append(" (")
                .append(database.detail())
                .append("); broker: ");
        if (broker.healthy()) {
            detail.append("UP (").append(broker.detail()).append(")");
        } else {
            Duration down = brokerDownFor.orElse(Duration.ZERO);
            detail.append("DOWN for ")
                    .append(Durations.format(down))
                    .append(brokerReady() ? ", within " : ", over ")
                    .append("outbox.health.max.broker.outage=")
                    .append(Durations.format(maxBrokerOutage))
                    .append(" (")
                    .append(broker.detail())
                    .append(")");
        }
        for (HealthCheck check : checks) {
            detail.append("; ")
                    .append(check.healthy() ? "UP" : "DOWN")
                    .append(" (")
                    .append(check.detail())
                    .append(")");
        }
        return new HealthCheck(ready, detail.toString());
    }
}
