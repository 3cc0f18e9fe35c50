package dev.outboxjava.core.relay;

import dev.outboxjava.core.InvalidConfigurationException;
import java.time.Duration;
import java.util.Objects;

/**
 * How the sweeper reclaims abandoned leases.
 *
 * @param leaseTimeout a lease older than this is presumed abandoned (its relay died); default 2 min.
 *                     Must exceed the relay's publish timeout plus the worst clock skew between hosts.
 * @param chunkSize    events reclaimed per statement; default {@value #DEFAULT_CHUNK_SIZE}
 * @param maxChunksPerTick statements per tick at most; default {@value #DEFAULT_MAX_CHUNKS_PER_TICK}
 */
public record SweeperConfig(Duration leaseTimeout, int chunkSize, int maxChunksPerTick) {

    public static final Duration DEFAULT_LEASE_TIMEOUT = Duration.ofMinutes(2);
    public static final int DEFAULT_CHUNK_SIZE = 1000;
    public static final int DEFAULT_MAX_CHUNKS_PER_TICK = 10;

    public SweeperConfig {
        Objects.requireNonNull(leaseTimeout, "leaseTimeout");
        if (leaseTimeout.isNegative() || leaseTimeout.isZero()) {
            throw new InvalidConfigurationException("sweeper.leaseTimeout", "must be positive, was " + leaseTimeout);
        }
        if (chunkSize < 1) {
            throw new InvalidConfigurationException("sweeper.chunkSize", "must be at least 1, was " + chunkSize);
        }
        if (maxChunksPerTick < 1) {
            throw new InvalidConfigurationException(
                    "sweeper.maxChunksPerTick", "must be at least 1, was " + maxChunksPerTick);
        }
    }

    public static SweeperConfig ofDefaults() {
        return new SweeperConfig(DEFAULT_LEASE_TIMEOUT, DEFAULT_CHUNK_SIZE, DEFAULT_MAX_CHUNKS_PER_TICK);
    }
}
