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
 * An event whose destination does not exist or routes it nowhere has a smaller budget of its own,
 * {@link #unroutableMaxAttempts()}, so that a missing exchange or topic shows up as dead letters
 * within seconds instead of after the whole backoff.
 *
 * <pre>{@code
 * RetryPolicy policy = RetryPolicy.builder()
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
    /** Default attempt budget of an event whose destination is unroutable: 3. */
    public static final int DEFAULT_UNROUTABLE_MAX_ATTEMPTS = 3;

    private final Duration initialDelay;
    private final double multiplier;
    private final Duration maxDelay;
    private final double jitter;
    private final int unroutableMaxAttempts;
    private final RandomGenerator random;

    private RetryPolicy(Builder builder) {
        this.initialDelay = builder.initialDelay;
        this.multiplier = builder.multiplier;
        this.maxDelay = builder.maxDelay;
        this.jitter = builder.jitter;
        this.unroutableMaxAttempts = builder.unroutableMaxAttempts;
        this.random = builder.random;
    }

    /** The policy with every default. */
    public static RetryPolicy ofDefaults() {
        return builder().build();
    }

    /** Starts a policy from the defaults. */
    public static Builder builder() {
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
        return decide(event, retryable, false, now);
    }

    /**
     * Decides what happens to an event whose publish just failed.
     *
     * @param event      the event as leased (its attempts do not yet count this failure)
     * @param retryable  whether the publisher said another attempt can help
     * @param unroutable whether the destination does not exist or routes the event nowhere: then the
     *                   budget is the smaller of the event's and {@link #unroutableMaxAttempts()}
     * @param now        the current time
     */
    public RetryDecision decide(OutboxEvent event, boolean retryable, boolean unroutable, Instant now) {
        int failures = event.attempts() + 1;
        int budget = unroutable ? Math.min(event.maxAttempts(), unroutableMaxAttempts) : event.maxAttempts();
        if (!retryable) {
            return RetryDecision.deadLetter(DeadLetterReason.notRetryable());
        }
        if (failures >= budget) {
            boolean unroutableBudget = unroutable && unroutableMaxAttempts < event.maxAttempts();
            return RetryDecision.deadLetter(new DeadLetterReason(
                    unroutableBudget ? DeadLetterReason.Kind.UNROUTABLE_BUDGET : DeadLetterReason.Kind.ATTEMPT_BUDGET,
                    budget));
        }
        return RetryDecision.retryAt(now.plus(delayAfter(failures)));
    }

    private double nextDouble() {
        return random != null
                ? random.nextDouble()
                : ThreadLocalRandom.current().nextDouble();
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

    /** Attempts an event with an unroutable destination gets before it is dead-lettered. */
    public int unroutableMaxAttempts() {
        return unroutableMaxAttempts;
    }

    @Override
    public String toString() {
        return "RetryPolicy[initialDelay=" + initialDelay + ", multiplier=" + multiplier + ", maxDelay=" + maxDelay
                + ", jitter=" + jitter + ", unroutableMaxAttempts=" + unroutableMaxAttempts + "]";
    }

    /** Builds a {@link RetryPolicy}; {@link #build()} rejects unusable values naming the setting. */
    public static final class Builder {
        private Duration initialDelay = DEFAULT_INITIAL_DELAY;
        private double multiplier = DEFAULT_MULTIPLIER;
        private Duration maxDelay = DEFAULT_MAX_DELAY;
        private double jitter = DEFAULT_JITTER;
        private int unroutableMaxAttempts = DEFAULT_UNROUTABLE_MAX_ATTEMPTS;
        private RandomGenerator random;

        private Builder() {}

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

        /**
         * Attempts an event gets when its destination does not exist or routes it nowhere (a missing
         * RabbitMQ exchange or Kafka topic, no queue bound): at most this many, fewer when the event's
         * own budget is smaller. Default {@value #DEFAULT_UNROUTABLE_MAX_ATTEMPTS}; at least 1.
         */
        public Builder unroutableMaxAttempts(int value) {
            this.unroutableMaxAttempts = value;
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
                throw new InvalidConfigurationException(
                        "retry.multiplier", "must be a finite number >= 1, was " + multiplier);
            }
            if (maxDelay.compareTo(initialDelay) < 0) {
                throw new InvalidConfigurationException(
                        "retry.maxDelay",
                        "must be at least retry.initialDelay (" + initialDelay + "), was " + maxDelay);
            }
            if (!(jitter >= 0.0 && jitter <= 1.0)) {
                throw new InvalidConfigurationException("retry.jitter", "must be between 0 and 1, was " + jitter);
            }
            if (unroutableMaxAttempts < 1) {
                throw new InvalidConfigurationException(
                        "retry.unroutableMaxAttempts", "must be at least 1, was " + unroutableMaxAttempts);
            }
            return new RetryPolicy(this);
        }
    }
}
