package dev.outboxjava.core.inbox;

import dev.outboxjava.core.InvalidConfigurationException;
import java.time.Duration;
import java.util.Objects;

/**
 * How the inbox cleaner deletes old records.
 *
 * @param retention        the deduplication window: a record is kept this long after its message was
 *                         processed, and a duplicate arriving later is NOT recognised; default 14 days.
 *                         Keep it longer than the longest possible redelivery delay (broker retention,
 *                         a relay backlog or outage, the sweeper's lease timeout, a consumer stopped
 *                         for a while, a replay of a topic from the start).
 * @param chunkSize        records deleted per statement; default {@value #DEFAULT_CHUNK_SIZE}
 * @param maxChunksPerTick statements per tick at most; default {@value #DEFAULT_MAX_CHUNKS_PER_TICK}
 */
public record InboxCleanerConfig(Duration retention, int chunkSize, int maxChunksPerTick) {

    public static final Duration DEFAULT_RETENTION = Duration.ofDays(14);
    public static final int DEFAULT_CHUNK_SIZE = 5000;
    public static final int DEFAULT_MAX_CHUNKS_PER_TICK = 20;

    public InboxCleanerConfig {
        Objects.requireNonNull(retention, "retention");
        if (retention.isNegative() || retention.isZero()) {
            throw new InvalidConfigurationException(
                    "inbox.retention",
                    "must be positive (it is the window in which " + "duplicates are recognised), was " + retention);
        }
        if (chunkSize < 1) {
            throw new InvalidConfigurationException("inbox.cleanupChunkSize", "must be at least 1, was " + chunkSize);
        }
        if (maxChunksPerTick < 1) {
            throw new InvalidConfigurationException(
                    "inbox.cleanupMaxChunksPerTick", "must be at least 1, was " + maxChunksPerTick);
        }
    }

    public static InboxCleanerConfig ofDefaults() {
        return new InboxCleanerConfig(DEFAULT_RETENTION, DEFAULT_CHUNK_SIZE, DEFAULT_MAX_CHUNKS_PER_TICK);
    }

    /** These settings with another retention. */
    public InboxCleanerConfig withRetention(Duration value) {
        return new InboxCleanerConfig(value, chunkSize, maxChunksPerTick);
    }
}
