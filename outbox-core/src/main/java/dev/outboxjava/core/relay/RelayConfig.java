package dev.outboxjava.core.relay;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.Ordering;
import java.time.Duration;
import java.util.Objects;

/**
 * How one relay tick works.
 *
 * @param batchSize        events leased per tick; default {@value #DEFAULT_BATCH_SIZE}, or
 *                         {@value #DEFAULT_PER_KEY_BATCH_SIZE} with per-key ordering
 *                         ({@link #defaultBatchSize(Ordering)})
 * @param publishTimeout   how long one batch may wait for broker acknowledgements; default 30 s.
 *                         Must stay well below the sweeper's lease timeout, or a slow batch is
 *                         reclaimed while still being published.
 * @param ordering         whether events of one key are kept in order (must match the store's); default none
 * @param markRetryTimeout how long a mark that the store failed (a database blip) is tried again, with
 *                         backoff and under the same lease, before the tick gives up and leaves the
 *                         events to the sweeper (which publishes them again after the lease timeout);
 *                         default 10 s, zero to never retry. Keep publishTimeout + markRetryTimeout
 *                         below the sweeper's lease timeout: a mark that arrives after the lease expired
 *                         is refused (fenced), so it does no harm, but it no longer prevents the duplicate.
 */
public record RelayConfig(int batchSize, Duration publishTimeout, Ordering ordering, Duration markRetryTimeout) {

    /** Default {@link #batchSize()} without ordering. */
    public static final int DEFAULT_BATCH_SIZE = 1000;
    /**
     * Default {@link #batchSize()} with per-key ordering: smaller, because a batch holds every key it
     * leased until it is published, and the other relays meanwhile find those keys taken.
     */
    public static final int DEFAULT_PER_KEY_BATCH_SIZE = 500;

    public static final Duration DEFAULT_PUBLISH_TIMEOUT = Duration.ofSeconds(30);
    /** Default {@link #markRetryTimeout()}: long enough for a database restart or failover, short next to the lease. */
    public static final Duration DEFAULT_MARK_RETRY_TIMEOUT = Duration.ofSeconds(10);
    /** Largest batch accepted; bigger ones make the lease statement and the mark arrays unwieldy. */
    public static final int MAX_BATCH_SIZE = 10_000;

    public RelayConfig {
        Objects.requireNonNull(publishTimeout, "publishTimeout");
        Objects.requireNonNull(ordering, "ordering");
        Objects.requireNonNull(markRetryTimeout, "markRetryTimeout");
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
            throw new InvalidConfigurationException(
                    "relay.batchSize", "must be between 1 and " + MAX_BATCH_SIZE + ", was " + batchSize);
        }
        if (publishTimeout.isNegative() || publishTimeout.isZero()) {
            throw new InvalidConfigurationException("relay.publishTimeout", "must be positive, was " + publishTimeout);
        }
        if (markRetryTimeout.isNegative()) {
            throw new InvalidConfigurationException(
                    "relay.markRetryTimeout",
                    "must not be negative (zero: never " + "retry a failed mark), was " + markRetryTimeout);
        }
    }

    /** Relaying with the given batch size, publish timeout and ordering, and the default mark retry timeout. */
    public RelayConfig(int batchSize, Duration publishTimeout, Ordering ordering) {
        this(batchSize, publishTimeout, ordering, DEFAULT_MARK_RETRY_TIMEOUT);
    }

    /** Unordered relaying with the given batch size and publish timeout. */
    public RelayConfig(int batchSize, Duration publishTimeout) {
        this(batchSize, publishTimeout, Ordering.none());
    }

    /** Every default, without ordering. */
    public static RelayConfig ofDefaults() {
        return ofDefaults(Ordering.none());
    }

    /** Every default for the given ordering, the batch size included ({@link #defaultBatchSize(Ordering)}). */
    public static RelayConfig ofDefaults(Ordering ordering) {
        return new RelayConfig(defaultBatchSize(ordering), DEFAULT_PUBLISH_TIMEOUT, ordering);
    }

    /**
     * The batch size that drained fastest with this ordering: {@value #DEFAULT_PER_KEY_BATCH_SIZE} per
     * key, {@value #DEFAULT_BATCH_SIZE} otherwise. Without ordering a larger batch only saves round
     * trips; per key it also keeps more keys from the other relay threads and processes while it is
     * published.
     */
    public static int defaultBatchSize(Ordering ordering) {
        return Objects.requireNonNull(ordering, "ordering").isPerKey()
                ? DEFAULT_PER_KEY_BATCH_SIZE
                : DEFAULT_BATCH_SIZE;
    }

    /** These settings with another ordering. */
    public RelayConfig withOrdering(Ordering value) {
        return new RelayConfig(batchSize, publishTimeout, value, markRetryTimeout);
    }

    /** These settings with another {@link #markRetryTimeout()}. */
    public RelayConfig withMarkRetryTimeout(Duration value) {
        return new RelayConfig(batchSize, publishTimeout, ordering, value);
    }
}
