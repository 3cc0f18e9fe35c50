package dev.outboxjava.worker;

import dev.outboxjava.core.InvalidConfigurationException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Thresholds of the database health signals that make the worker not ready ({@code /health/ready}
 * answers 503 and {@code status} says {@code ready no}), and the inbox table whose size is watched.
 *
 * @param maxLag     the oldest eligible event (due now, not held back by an earlier event of its key) may have
 *                   waited at most this long since it became due; events waiting for a retry or scheduled for
 *                   later never count; {@link Duration#ZERO} = never flips readiness
 * @param maxXminAge the oldest open transaction of the database (holding back the xmin horizon) may be
 *                   open at most this long; {@link Duration#ZERO} = never flips readiness
 * @param inboxTable the inbox table to report the size of; empty = none ({@code outbox.health.inbox.table=none})
 */
public record HealthConfig(Duration maxLag, Duration maxXminAge, Optional<String> inboxTable) {

    /** Default {@code outbox.health.max.lag}: 5 minutes. */
    public static final Duration DEFAULT_MAX_LAG = Duration.ofMinutes(5);
    /** Default {@code outbox.health.max.xmin.age}: 10 minutes. */
    public static final Duration DEFAULT_MAX_XMIN_AGE = Duration.ofMinutes(10);

    /**
     * @throws InvalidConfigurationException naming the component, {@code HealthConfig.maxLag} or
     *         {@code HealthConfig.maxXminAge}, when a threshold is negative
     */
    public HealthConfig {
        Objects.requireNonNull(maxLag, "maxLag");
        Objects.requireNonNull(maxXminAge, "maxXminAge");
        Objects.requireNonNull(inboxTable, "inboxTable");
        if (maxLag.isNegative()) {
            throw new InvalidConfigurationException("HealthConfig.maxLag", "must not be negative, was " + maxLag);
        }
        if (maxXminAge.isNegative()) {
            throw new InvalidConfigurationException(
                    "HealthConfig.maxXminAge", "must not be negative, was " + maxXminAge);
        }
    }

    /** The defaults: 5 minutes of lag, 10 minutes of open transaction, inbox table {@code outbox_inbox}. */
    public static HealthConfig ofDefaults() {
        return new HealthConfig(DEFAULT_MAX_LAG, DEFAULT_MAX_XMIN_AGE, Optional.of("outbox_inbox"));
    }
}
