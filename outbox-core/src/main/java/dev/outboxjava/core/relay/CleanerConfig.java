package dev.outboxjava.core.relay;

import dev.outboxjava.core.InvalidConfigurationException;
import java.time.Duration;
import java.util.Objects;

/**
 * How the cleaner deletes sent events.
 *
 * @param retention        sent events are kept this long for audit; default 7 days
 * @param chunkSize        rows deleted per statement; default {@value #DEFAULT_CHUNK_SIZE}
 * @param maxChunksPerTick statements per tick at most; default {@value #DEFAULT_MAX_CHUNKS_PER_TICK}
 */
public record CleanerConfig(Duration retention, int chunkSize, int maxChunksPerTick) {

    public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);
    public static final int DEFAULT_CHUNK_SIZE = 5000;
    public static final int DEFAULT_MAX_CHUNKS_PER_TICK = 20;

    public CleanerConfig {
        Objects.requireNonNull(retention, "retention");
        if (retention.isNegative()) {
            throw new InvalidConfigurationException("cleaner.retention", "must not be negative, was " + retention);
        }
        if (chunkSize < 1) {
            throw new InvalidConfigurationException("cleaner.chunkSize", "must be at least 1, was " + chunkSize);
        }
        if (maxChunksPerTick < 1) {
            throw new InvalidConfigurationException(
                    "cleaner.maxChunksPerTick", "must be at least 1, was " + maxChunksPerTick);
        }
    }

    public static CleanerConfig ofDefaults() {
        return new CleanerConfig(DEFAULT_RETENTION, DEFAULT_CHUNK_SIZE, DEFAULT_MAX_CHUNKS_PER_TICK);
    }
}
