package dev.outboxjava.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * When to try a failed event again, and when to give up on it.
 *
 * <p>The delay before the n-th retry is {@code initialDelay × multiplier^(n-1)}, spread by a random
 * jitter of ±{@code jitter} (so relays that failed together do not retry together) and capped at
 * {@code maxDelay}. The attempt budget is per event ({@link OutboxEvent#maxAttempts()}); this policy
 * only decides, for an event that has just failed, whether the budget allows another attempt.
 *
 * <pre>{@code
 * RetryPolicy policy = RetryPolicy.custom()
 *         .initialDelay(Duration.ofMillis(500))
 *         .maxDelay(Duration.ofMinutes(2))
 *         .build();
 * }</pre>
 */
public final class RetryPolicy {

    /** Default delay before the first retry: 1 second. */
    public static final Duration DEFAULT_INITIAL_DELAY = Duration.ofSeconds(1);
    /** Default growth factor between retries: 2. */
    public static final double DEFAULT_MULTIPLIER = 2.0;
    /** Default longest delay: 5 minutes. */
    public static final Duration DEFAULT_MAX_DELAY = Duration.ofMinutes(5);
    /** Default jitter: ±20 % of the delay. */
    public static final double DEFAULT_JITTER = 0.2;

    private final Duration initialDelay;
    private final double multiplier;
    private final Duration maxDelay;
    private final double jitter;
    private final RandomGenerator random;

    private RetryPolicy(Builder builder) {
        this.initialDelay = builder.initialDelay;
        this.multiplier = builder.multiplier;
        this.maxDelay = builder.maxDelay;
        this.jitter = builder.jitter;
        this.random = builder.random;
    }

    /** The policy with every default. */
    public static RetryPolicy ofDefaults() {
        return custom().build();
    }

    /** Starts a policy from the defaults. */
    public static Builder custom() {
        return new Builder();
    }

    /**
     * The delay before the next attempt of an event that has now failed {@code failures} times.
     *
     * @param failures failed attempts so far, including the one just made (at least 1)
     */
    public Duration delayAfter(int failures) {
        if (failures < 1) {
            throw new IllegalArgumentException("failures must be at least 1, was " + failures);
        }
        double base = initialDelay.toNanos() * Math.pow(multiplier, failures - 1);
        double spread = jitter == 0 ? 1.0 : 1.0 + jitter * (2 * nextDouble() - 1);
        double nanos = Math.min(base * spread, maxDelay.toNanos());
        return Duration.ofNanos((long) nanos);
    }

    /**
     * Decides what happens to an event whose publish just failed.
     *
     * @param event     the event as leased (its attempts do not yet count this failure)
     * @param retryable whether the publisher said another attempt can help
     * @param now       the current time
     */
    public RetryDecision decide(OutboxEvent event, boolean retryable, Instant now) {
        int failures = event.attempts() + 1;
        if (!retryable || failures >= event.maxAttempts()) {
            return RetryDecision.deadLetter();
        }
        return RetryDecision.retryAt(now.plus(delayAfter(failures)));
    }

    private double nextDouble() {
        return random != null ? random.nextDouble() : ThreadLocalRandom.current().nextDouble();
    }

    public Duration initialDelay() {
        return initialDelay;
    }

    public double multiplier() {
        return multiplier;
    }

    public Duration maxDelay() {
        return maxDelay;
    }

    public double jitter() {
        return jitter;
    }

    @Override
    public String toString() {
        return "RetryPolicy[initialDelay=" + initialDelay + ", multiplier=" + multiplier + ", maxDelay="
                + maxDelay + ", jitter=" + jitter + "]";
    }

    /** Builds a {@link RetryPolicy}; {@link #build()} rejects unusable values naming the setting. */
    public static final class Builder {
        private Duration initialDelay = DEFAULT_INITIAL_DELAY;
        private double multiplier = DEFAULT_MULTIPLIER;
        private Duration maxDelay = DEFAULT_MAX_DELAY;
        private double jitter = DEFAULT_JITTER;
        private RandomGenerator random;

        private Builder() {
        }

        /** Delay before the first retry. Default 1 s; must be positive. */
        public Builder initialDelay(Duration value) {
            this.initialDelay = Objects.requireNonNull(value, "initialDelay");
            return this;
        }

        /** Growth factor between consecutive delays. Default 2; at least 1. */
        public Builder multiplier(double value) {
            this.multiplier = value;
            return this;
        }

        /** Longest delay, applied after jitter. Default 5 min; at least the initial delay. */
        public Builder maxDelay(Duration value) {
            this.maxDelay = Objects.requireNonNull(value, "maxDelay");
            return this;
        }

        /** Relative jitter, from 0 (none) to 1. Default 0.2 (±20 %). */
        public Builder jitter(double value) {
            this.jitter = value;
            return this;
        }

        /** Makes the jitter reproducible (tests). Default: a thread-local random. */
        public Builder seed(long seed) {
            this.random = new Random(seed);
            return this;
        }

        /** The random source for jitter. Default: a thread-local random. Must be thread-safe if shared. */
        public Builder random(RandomGenerator value) {
            this.random = Objects.requireNonNull(value, "random");
            return this;
        }

        public RetryPolicy build() {
            if (initialDelay.isNegative() || initialDelay.isZero()) {
                throw new InvalidConfigurationException("retry.initialDelay", "must be positive, was " + initialDelay);
            }
            if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
                throw new InvalidConfigurationException("retry.multiplier", "must be a finite number >= 1, was "
                        + multiplier);
            }
            if (maxDelay.compareTo(initialDelay) < 0) {
                throw new InvalidConfigurationException("retry.maxDelay", "must be at least retry.initialDelay ("
                        + initialDelay + "), was " + maxDelay);
            }
            if (!(jitter >= 0.0 && jitter <= 1.0)) {
                throw new InvalidConfigurationException("retry.jitter", "must be between 0 and 1, was " + jitter);
            }
            return new RetryPolicy(this);
        }
    }
}
