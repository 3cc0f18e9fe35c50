package dev.outboxjava.core.relay;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.Ordering;
import java.time.Duration;
import java.util.Objects;

/**
 * How one relay tick works.
 *
 * @param batchSize      events leased per tick; default {@value #DEFAULT_BATCH_SIZE}
 * @param publishTimeout how long one batch may wait for broker acknowledgements; default 30 s.
 *                       Must stay well below the sweeper's lease timeout, or a slow batch is
 *                       reclaimed while still being published.
 * @param ordering       whether events of one key are kept in order (must match the store's); default none
 */
public record RelaySettings(int batchSize, Duration publishTimeout, Ordering ordering) {

    public static final int DEFAULT_BATCH_SIZE = 500;
    public static final Duration DEFAULT_PUBLISH_TIMEOUT = Duration.ofSeconds(30);
    /** Largest batch accepted; bigger ones make the lease statement and the mark arrays unwieldy. */
    public static final int MAX_BATCH_SIZE = 10_000;

    public RelaySettings {
        Objects.requireNonNull(publishTimeout, "publishTimeout");
        Objects.requireNonNull(ordering, "ordering");
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
            throw new InvalidConfigurationException("relay.batchSize", "must be between 1 and " + MAX_BATCH_SIZE
                    + ", was " + batchSize);
        }
        if (publishTimeout.isNegative() || publishTimeout.isZero()) {
            throw new InvalidConfigurationException("relay.publishTimeout", "must be positive, was " + publishTimeout);
        }
    }

    /** Unordered relaying with the given batch size and publish timeout. */
    public RelaySettings(int batchSize, Duration publishTimeout) {
        this(batchSize, publishTimeout, Ordering.none());
    }

    public static RelaySettings ofDefaults() {
        return new RelaySettings(DEFAULT_BATCH_SIZE, DEFAULT_PUBLISH_TIMEOUT);
    }

    /** These settings with another ordering. */
    public RelaySettings withOrdering(Ordering value) {
        return new RelaySettings(batchSize, publishTimeout, value);
    }
}
