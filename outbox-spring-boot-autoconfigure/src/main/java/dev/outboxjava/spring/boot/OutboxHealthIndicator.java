package dev.outboxjava.spring.boot;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.worker.Durations;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.Readiness;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@code /actuator/health/outbox}: UP while the relay can make progress, by the same rule as the
 * standalone worker's readiness: the database answers, the broker answers or has failed for no longer
 * than {@code outbox.health.max-broker-outage}, no event the relay could publish has waited longer
 * than {@code outbox.health.max-lag}, and no transaction has held the database back longer than
 * {@code outbox.health.max-xmin-age}. Belongs in the readiness group
 * ({@code management.endpoint.health.group.readiness.include=readinessState,outbox}).
 *
 * <p>Details, one field per part: {@code database} and {@code broker} (each with its {@code status} and
 * {@code detail}; the broker's {@code downFor} while it fails), {@code lag} (how long the oldest event
 * the relay could publish has waited, the threshold, and the database signals' verdict), {@code backlog}
 * (the pending events by what they wait for) and {@code running}.
 */
public final class OutboxHealthIndicator implements HealthIndicator {

    /** The worker names its thresholds as the standalone worker's settings; here they are the starter's properties. */
    private static final Map<String, String> SETTINGS = Map.of(
            "outbox.health.max.broker.outage", "outbox.health.max-broker-outage",
            "outbox.health.max.lag", "outbox.health.max-lag",
            "outbox.health.max.xmin.age", "outbox.health.max-xmin-age");

    private final OutboxWorker worker;
    private final OutboxProperties properties;
    private final Clock clock;

    public OutboxHealthIndicator(OutboxWorker worker, OutboxProperties properties) {
        this(worker, properties, Clock.systemUTC());
    }

    OutboxHealthIndicator(OutboxWorker worker, OutboxProperties properties, Clock clock) {
        this.worker = Objects.requireNonNull(worker, "worker");
        this.properties = Objects.requireNonNull(properties, "properties");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public Health health() {
        Readiness readiness = worker.readiness();
        Health.Builder health = readiness.ready() ? Health.up() : Health.down();
        health.withDetail("database", part(readiness.database().healthy(), readiness.database()));
        Map<String, Object> broker = part(readiness.brokerReady(), readiness.broker());
        readiness.brokerDownFor().ifPresent(down -> {
            broker.put("downFor", Durations.format(down));
            broker.put(
                    "detail",
                    "failing for " + Durations.format(down) + (readiness.brokerReady() ? ", within " : ", over ")
                            + "outbox.health.max-broker-outage=" + Durations.format(readiness.maxBrokerOutage())
                            + ": " + spring(readiness.broker().detail()));
        });
        broker.put("maxBrokerOutage", Durations.format(readiness.maxBrokerOutage()));
        health.withDetail("broker", broker);
        Map<String, Object> lag = new LinkedHashMap<>();
        List<HealthCheck> checks = readiness.checks();
        lag.put("status", checks.stream().allMatch(HealthCheck::healthy) ? "UP" : "DOWN");
        lag.put("maxLag", Durations.format(properties.getHealth().getMaxLag()));
        try {
            Backlog backlog = worker.backlog();
            lag.put("oldestEligibleWait", Durations.format(backlog.oldestEligibleWait(clock.instant())));
            Map<String, Object> counts = new LinkedHashMap<>();
            counts.put("eligible", backlog.eligible());
            counts.put("retrying", backlog.retrying());
            counts.put("scheduled", backlog.scheduled());
            counts.put("held", backlog.held());
            backlog.oldestEligibleSince().ifPresent(since -> counts.put("oldestEligibleSince", since.toString()));
            health.withDetail("backlog", counts);
        } catch (RuntimeException e) {
            health.withDetail("backlog", Map.of("status", "UNKNOWN", "detail", "unavailable: " + e.getMessage()));
        }
        if (!checks.isEmpty()) {
            lag.put(
                    "detail",
                    String.join(
                            "; ",
                            checks.stream().map(check -> spring(check.detail())).toList()));
        }
        health.withDetail("lag", lag).withDetail("running", worker.isRunning());
        return health.build();
    }

    private static Map<String, Object> part(boolean up, HealthCheck check) {
        Map<String, Object> part = new LinkedHashMap<>();
        part.put("status", up ? "UP" : "DOWN");
        part.put("detail", spring(check.detail()));
        return part;
    }

    /** The worker's setting names in a detail, as the starter's properties. */
    static String spring(String detail) {
        String named = detail;
        for (Map.Entry<String, String> setting : SETTINGS.entrySet()) {
            named = named.replace(setting.getKey(), setting.getValue());
        }
        return named;
    }
}
