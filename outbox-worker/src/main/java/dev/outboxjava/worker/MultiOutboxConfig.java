package dev.outboxjava.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a {@link MultiOutboxWorker} adds to {@link OutboxWorkerConfig}: how often it reads its set of
 * outboxes again, and how far an idle outbox's polling backs off. Build with {@link #builder()} or take
 * {@link #ofDefaults()}.
 *
 * @param discoveryInterval   how often the discovery rules are read again; default {@value #DEFAULT_DISCOVERY_SECONDS} s
 * @param maxIdlePollInterval the longest wait between two polls of an outbox that keeps finding nothing;
 *                            default {@value #DEFAULT_MAX_IDLE_POLL_SECONDS} s
 */
public record MultiOutboxConfig(Duration discoveryInterval, Duration maxIdlePollInterval) {

    /** Default {@link #discoveryInterval()} in seconds. */
    public static final int DEFAULT_DISCOVERY_SECONDS = 30;
    /** Default {@link #maxIdlePollInterval()} in seconds. */
    public static final int DEFAULT_MAX_IDLE_POLL_SECONDS = 10;

    /**
     * @throws InvalidSettingsException naming each setting that is not a positive duration
     */
    public MultiOutboxConfig {
        List<InvalidSettingsException.Problem> problems = new ArrayList<>();
        positive(problems, "discoveryInterval", discoveryInterval);
        positive(problems, "maxIdlePollInterval", maxIdlePollInterval);
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
    }

    private static void positive(List<InvalidSettingsException.Problem> problems, String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            problems.add(new InvalidSettingsException.Problem(
                    "MultiOutboxConfig." + name, "must be a positive duration, was " + value));
        }
    }

    /** The defaults stated on the components. */
    public static MultiOutboxConfig ofDefaults() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link MultiOutboxConfig}; validated by {@link #build()}. */
    public static final class Builder {
        private Duration discoveryInterval = Duration.ofSeconds(DEFAULT_DISCOVERY_SECONDS);
        private Duration maxIdlePollInterval = Duration.ofSeconds(DEFAULT_MAX_IDLE_POLL_SECONDS);

        private Builder() {}

        /** How often the discovery rules are read again. Default {@value #DEFAULT_DISCOVERY_SECONDS} s. */
        public Builder discoveryInterval(Duration value) {
            this.discoveryInterval = Objects.requireNonNull(value, "discoveryInterval");
            return this;
        }

        /**
         * The longest wait between two polls of an idle outbox: after an empty poll the next waits the
         * poll interval, then twice as long each time up to this. Default {@value #DEFAULT_MAX_IDLE_POLL_SECONDS} s.
         */
        public Builder maxIdlePollInterval(Duration value) {
            this.maxIdlePollInterval = Objects.requireNonNull(value, "maxIdlePollInterval");
            return this;
        }

        /** @throws InvalidSettingsException naming each unusable setting */
        public MultiOutboxConfig build() {
            return new MultiOutboxConfig(discoveryInterval, maxIdlePollInterval);
        }
    }
}
